"""Each lifecycle rule rejects the synthetic record that breaks it, and only that rule fires."""

from __future__ import annotations

import pytest

from harness.lifecycle import LifecycleFacts, MessageFacts, RunFacts, TaskFacts, grade_lifecycle

IDENTITY = {"runner_instance_id": "r-1", "pid": 4242, "process_started_at": 1700000000.0}


def healthy() -> LifecycleFacts:
    return LifecycleFacts(
        tasks=[TaskFacts(id="1", status="done", assignee_id="7")],
        runs=[
            RunFacts(id="10", task_id="1", agent_id="7", status="succeeded", **IDENTITY),
            RunFacts(id="11", task_id="1", agent_id="7", status="succeeded", **IDENTITY),
        ],
        messages=[MessageFacts(id="5", task_id="1", body="please revise", consumed_by_run_id="11")],
        sent_messages=["please revise"],
    )


def failed_ids(facts: LifecycleFacts) -> list[str]:
    return [check.id for check in grade_lifecycle(facts) if not check.passed]


def test_healthy_records_pass_every_check() -> None:
    assert failed_ids(healthy()) == []


def _break(facts: LifecycleFacts, how: str) -> LifecycleFacts:
    if how == "in-review":
        facts.tasks[0].status = "in_review"
    elif how == "still-running":
        facts.runs[1].status = "running"
        facts.tasks[0].status = "done"
    elif how == "no-identity":
        facts.runs[0].pid = None
    elif how == "crash":
        facts.runs[0].status, facts.runs[0].error = "failed", "process_lost"
    elif how == "duplicate-message":
        facts.messages.append(MessageFacts(id="6", task_id="1", body="please revise", consumed_by_run_id="11"))
    elif how == "unconsumed":
        facts.messages[0].consumed_by_run_id = None
    elif how == "too-many-runs":
        facts.runs += [RunFacts(id=str(100 + n), task_id="1", status="succeeded", **IDENTITY) for n in range(11)]
    return facts


@pytest.mark.parametrize(
    ("how", "expected"),
    [
        ("in-review", ["lifecycle.tasks-done"]),
        ("no-identity", ["lifecycle.runner-identity"]),
        ("crash", ["lifecycle.runs-succeeded"]),
        ("duplicate-message", ["lifecycle.messages-stored-once"]),
        ("unconsumed", ["lifecycle.messages-consumed"]),
        ("too-many-runs", ["lifecycle.bounded-runs"]),
    ],
)
def test_each_broken_record_fails_its_own_check(how: str, expected: list[str]) -> None:
    assert failed_ids(_break(healthy(), how)) == expected


def test_a_run_still_running_is_not_settled() -> None:
    assert "lifecycle.settled" in failed_ids(_break(healthy(), "still-running"))


def test_the_interruption_the_story_caused_is_excused_but_only_as_a_cancellation() -> None:
    facts = healthy()
    facts.runs[0].status = "cancelled"
    assert failed_ids(facts) == ["lifecycle.runs-succeeded"]
    facts.interrupted_run_ids = ["10"]
    assert failed_ids(facts) == []
    facts.runs[0].status = "failed"
    assert failed_ids(facts) == ["lifecycle.runs-succeeded"]


def test_contention_cancellation_is_excused_only_without_identity() -> None:
    facts = healthy()
    facts.runs.append(RunFacts(id="12", task_id="1", status="cancelled", provider_work_started=False))
    assert failed_ids(facts) == []
    facts.runs[-1].pid = 99
    assert failed_ids(facts) == ["lifecycle.runner-identity", "lifecycle.runs-succeeded"]
