"""Each invariant holds on sound facts and names the subject that breaks it."""

from __future__ import annotations

from pathlib import Path

import httpx

from harness.checks.invariants import NAMES, violations
from harness.checks.lifecycle import LifecycleFacts, MessageFacts, RunFacts, TaskFacts
from harness.evidence.recorder import EvidenceRecorder
from harness.running.watch import InvariantWatch


def facts(
    status: str = "done",
    run_status: str = "succeeded",
    pointer: str | None = None,
    unread: int = 0,
    consumed: str | None = "r1",
    extra_runs: tuple[str, ...] = (),
) -> LifecycleFacts:
    runs = [RunFacts(id="r1", task_id="t1", agent_id="a1", status=run_status)]
    runs += [RunFacts(id=f"r{n}", task_id="t1", agent_id="a1", status=s) for n, s in enumerate(extra_runs, start=2)]
    return LifecycleFacts(
        tasks=[TaskFacts(id="t1", title="t", status=status, active_run_id=pointer, unconsumed_messages=unread)],
        runs=runs,
        messages=[MessageFacts(id="m1", task_id="t1", body="b", consumed_by_run_id=consumed)],
        deliveries=[],
        sent_messages=[],
        interrupted_run_ids=[],
        lead_agent_id=None,
        max_runs=5,
    )


def names(found: list) -> list[str]:  # type: ignore[type-arg]
    return sorted(v.invariant for v in found)


def test_sound_facts_break_nothing() -> None:
    assert violations(facts()) == []
    assert violations(facts(status="in_progress", run_status="running", pointer="r1")) == []
    assert violations(facts(status="done", run_status="queued", pointer="r1")) == []  # queued on a Done task is allowed


def test_done_while_running_is_named() -> None:
    assert names(violations(facts(status="done", run_status="running", pointer="r1"))) == ["done-while-active"]


def test_a_wrong_pointer_or_two_active_runs_is_named() -> None:
    assert names(violations(facts(status="in_progress", run_status="running", pointer=None))) == ["one-active-run"]
    two = facts(status="in_progress", run_status="running", pointer="r1", extra_runs=("running",))
    assert names(violations(two)) == ["one-active-run"]


def test_a_counter_that_disagrees_with_the_stored_messages_is_named() -> None:
    assert names(violations(facts(unread=1))) == ["unread-count"]
    assert names(violations(facts(unread=0, consumed=None))) == ["unread-count"]


class _Unreachable:
    """A product API every read of which fails, as one restarting for good would."""

    def tasks(self) -> list[object]:
        raise httpx.ConnectError("connection refused")


def test_a_watch_that_could_read_no_sample_records_no_invariant_as_held(tmp_path: Path) -> None:
    recorder = EvidenceRecorder(tmp_path / "attempt")
    watch = InvariantWatch(_Unreachable(), recorder, lambda step: None, interval_s=0)  # type: ignore[arg-type]
    watch.sample()
    watch.sample()
    watch.conclude()
    assert [c.id for c in recorder.checks] == [f"invariant.{name}" for name in NAMES]
    assert not any(c.passed for c in recorder.checks) and not recorder.failed_checks()
    assert all("none of 2 sample(s) could be read" in (c.unobservable or "") for c in recorder.checks)
    assert "ConnectError: connection refused" in recorder.checks[0].detail


def test_a_watch_never_sampled_says_so(tmp_path: Path) -> None:
    recorder = EvidenceRecorder(tmp_path / "attempt")
    InvariantWatch(_Unreachable(), recorder, lambda step: None).conclude()  # type: ignore[arg-type]
    assert {c.unobservable for c in recorder.checks} == {"the story never waited, so the product was never sampled"}
