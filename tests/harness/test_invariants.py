"""Each invariant holds on sound facts and names the subject that breaks it."""

from __future__ import annotations

from harness.checks.invariants import violations
from harness.checks.lifecycle import LifecycleFacts, MessageFacts, RunFacts, TaskFacts


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
