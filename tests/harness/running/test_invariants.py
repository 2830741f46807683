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
    received: list[str] | None = None,
) -> LifecycleFacts:
    """One task, run r1 and message m1; r1's read receipts name m1 when the product says r1 consumed it."""
    if received is None and consumed == "r1":
        received = ["m1"]
    runs = [RunFacts(id="r1", task_id="t1", agent_id="a1", status=run_status, received_message_ids=received)]
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


def test_a_message_marked_read_that_no_runner_received_is_still_unread() -> None:
    """The counter and the product's "consumed by" marks agree (the old rule's truth), but no run's own read
    receipts name the message: it is unread by the harness's count, whatever the product's marks say."""
    sample = facts(unread=0, consumed="r1", received=[])
    [violation] = violations(sample)
    assert violation.invariant == "unread-count"
    assert "counts 0 unread message(s); no run's read receipts name: ['m1']" in violation.detail


def test_the_unread_count_is_not_judged_where_the_product_keeps_no_counter_or_receipts() -> None:
    sample = facts(unread=0, consumed="r1", received=[])
    sample.observes = ["message-read", "message-wakes"]  # vibe-kanban: the driver's counter is its own arithmetic
    assert violations(sample) == []


def test_a_pointer_the_driver_works_out_from_the_runs_is_no_claim_but_two_active_runs_are() -> None:
    derived = ["message-wakes", "runner-identity", "receipts", "run-cause"]  # Paperclip declares no pointer
    wrong = facts(status="in_progress", run_status="running", pointer=None)
    assert names(violations(wrong)) == ["one-active-run"]
    wrong.observes = derived
    assert violations(wrong) == []
    two = facts(status="in_progress", run_status="running", pointer="r1", extra_runs=("running",))
    two.observes = derived
    assert names(violations(two)) == ["one-active-run"]


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
    assert {c.unobservable for c in recorder.checks} == {
        "the harness never looked: the story never waited, so the product was never sampled"
    }
    assert not recorder.failed_checks(), "a declared fact the harness never looked for is not missing"
