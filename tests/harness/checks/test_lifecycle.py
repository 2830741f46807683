"""Each lifecycle rule rejects the synthetic record that breaks it, and only that rule fires."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from harness.checks.lifecycle import (
    CHECK_IDS,
    LIFECYCLE_CHECKS,
    DeliveryFacts,
    LifecycleFacts,
    MessageFacts,
    RunFacts,
    TaskFacts,
    grade_lifecycle,
)

IDENTITY = {"runner_instance_id": "r-1", "pid": 4242, "process_started_at": 1700000000.0}


def healthy() -> LifecycleFacts:
    return LifecycleFacts(
        tasks=[TaskFacts(id="1", status="done", assignee_id="7")],
        runs=[
            RunFacts(id="10", task_id="1", agent_id="7", status="succeeded", cause="assignment", **IDENTITY),
            RunFacts(
                id="11",
                task_id="1",
                agent_id="7",
                status="succeeded",
                cause="user_message",
                received_message_ids=["5"],
                **IDENTITY,
            ),
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
        facts.runs[1].received_message_ids = ["5", "6"]
    elif how == "unconsumed":
        facts.messages[0].consumed_by_run_id = None
    elif how == "woke-again":  # Paperclip: a comment read by the running run, then a deferred wake for it
        facts.messages[0].woke_run_ids = ["11", "12"]
    elif how == "handed-again":  # no wake recorded, but a later run's own reads name the consumed message
        facts.runs.append(
            RunFacts(
                id="12", task_id="1", status="succeeded", cause="user_message", received_message_ids=["5"], **IDENTITY
            )
        )
    elif how == "read-again-by-its-reader":  # the product hands the consumed message to its reader a second time
        facts.runs[1].received_message_ids = ["5", "5"]
    elif how == "handed-across-tasks":  # a run of another task reads it; the product still says run 11 consumed it
        facts.tasks.append(TaskFacts(id="2", status="done", assignee_id="7"))
        facts.runs.append(
            RunFacts(
                id="12", task_id="2", status="succeeded", cause="assignment", received_message_ids=["5"], **IDENTITY
            )
        )
    elif how == "too-many-runs":
        facts.runs += [
            RunFacts(id=str(100 + n), task_id="1", agent_id="8", status="succeeded", cause="handoff", **IDENTITY)
            for n in range(11)
        ]
    return facts


@pytest.mark.parametrize(
    ("how", "expected"),
    [
        ("in-review", ["lifecycle.tasks-done"]),
        ("no-identity", ["lifecycle.runner-identity"]),
        ("crash", ["lifecycle.runs-succeeded"]),
        ("duplicate-message", ["lifecycle.messages-stored-once"]),
        ("unconsumed", ["lifecycle.messages-consumed"]),
        ("woke-again", ["lifecycle.messages-handed-once"]),
        ("handed-again", ["lifecycle.messages-handed-once"]),
        ("read-again-by-its-reader", ["lifecycle.messages-handed-once"]),
        ("handed-across-tasks", ["lifecycle.messages-handed-once"]),
        ("too-many-runs", ["lifecycle.bounded-runs"]),
    ],
)
def test_each_broken_record_fails_its_own_check(how: str, expected: list[str]) -> None:
    assert failed_ids(_break(healthy(), how)) == expected


def test_a_product_whose_agents_hand_work_over_for_review_is_done_in_review_and_only_there() -> None:
    facts = _break(healthy(), "in-review")
    facts.done_statuses = ["in_review"]
    assert failed_ids(facts) == []
    facts.tasks[0].status = "in_progress"
    assert failed_ids(facts) == ["lifecycle.tasks-done"]
    facts.tasks[0].status = "done"  # a person merged it: the product's own done is done too only when declared
    assert failed_ids(facts) == ["lifecycle.tasks-done"]


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
    facts.runs.append(
        RunFacts(id="12", task_id="1", status="cancelled", provider_work_started=False, cause="assignment")
    )
    assert failed_ids(facts) == []
    facts.runs[-1].pid = 99
    assert failed_ids(facts) == ["lifecycle.runner-identity", "lifecycle.runs-succeeded"]


# ---- the named checks added for delegation, Stop and restarts --------------------------------

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def delegated() -> LifecycleFacts:
    """Lead 1 owns parent 1; teammate 2 works on child 2 and delivers before the parent finishes."""
    facts = healthy()
    facts.lead_agent_id = "7"
    facts.tasks.append(TaskFacts(id="2", status="done", assignee_id="8", parent_id="1"))
    facts.runs[0].ended_at = T0 + timedelta(seconds=2)
    facts.runs[1].ended_at = T0 + timedelta(seconds=9)
    facts.runs.append(
        RunFacts(
            id="20",
            task_id="2",
            agent_id="8",
            status="succeeded",
            cause="assignment",
            ended_at=T0 + timedelta(seconds=5),
            **IDENTITY,
        )
    )
    facts.deliveries.append(DeliveryFacts(id="3", task_id="2", run_id="20", created_at=T0 + timedelta(seconds=4)))
    return facts


def test_every_check_has_its_documented_name() -> None:
    assert CHECK_IDS == tuple(check(healthy()).id for check in LIFECYCLE_CHECKS)
    assert set(CHECK_IDS) >= {
        "lifecycle.tasks-done",
        "lifecycle.settled",
        "lifecycle.runner-identity",
        "lifecycle.runs-succeeded",
        "lifecycle.within-budget",
        "lifecycle.within-time-limit",
        "lifecycle.bounded-runs",
        "lifecycle.parent-owned-by-lead",
        "lifecycle.messages-stored-once",
        "lifecycle.messages-consumed",
        "lifecycle.messages-handed-once",
        "lifecycle.no-pending-bookkeeping",
        "lifecycle.parent-after-child",
    }


def test_a_healthy_delegation_passes() -> None:
    assert failed_ids(delegated()) == []


def test_a_teammate_on_the_parent_breaks_ownership_only() -> None:
    facts = delegated()
    facts.runs.append(
        RunFacts(
            id="21",
            task_id="1",
            agent_id="8",
            status="succeeded",
            cause="assignment",
            ended_at=T0 + timedelta(seconds=6),
            **IDENTITY,
        )
    )
    assert failed_ids(facts) == ["lifecycle.parent-owned-by-lead"]
    facts = delegated()
    facts.tasks[0].assignee_id = "8"
    assert failed_ids(facts) == ["lifecycle.parent-owned-by-lead"]


def test_a_parent_that_finishes_before_its_child_delivers_fails() -> None:
    facts = delegated()
    facts.runs[1].ended_at = T0 + timedelta(seconds=3)  # before the child's run ended and its delivery
    assert failed_ids(facts) == ["lifecycle.parent-after-child"]


def test_pending_bookkeeping_is_named() -> None:
    facts = healthy()
    facts.tasks[0].unconsumed_messages = 2
    assert failed_ids(facts) == ["lifecycle.no-pending-bookkeeping"]
    facts = healthy()
    facts.tasks[0].active_run_id = "11"  # succeeded long ago
    assert failed_ids(facts) == ["lifecycle.no-pending-bookkeeping"]


def test_the_interruption_is_excused_once_and_only_as_the_users_stop() -> None:
    facts = healthy()
    facts.runs[0].status, facts.runs[0].error = "cancelled", "stopped_by_user"
    facts.interrupted_run_ids = ["10"]
    assert failed_ids(facts) == []
    facts.runs[0].error = "process_lost"
    assert failed_ids(facts) == ["lifecycle.runs-succeeded"]
    facts.runs[0].error = "stopped_by_user"
    facts.interrupted_run_ids = ["10", "11"]
    assert failed_ids(facts) == ["lifecycle.runs-succeeded"]


def test_a_message_read_by_the_stopped_run_counts_as_consumed() -> None:
    facts = healthy()
    facts.runs[1].status, facts.runs[1].error = "cancelled", "stopped_by_user"
    assert "lifecycle.messages-consumed" in failed_ids(facts)
    facts.interrupted_run_ids = ["11"]
    assert failed_ids(facts) == []


def test_a_session_id_alone_voids_the_contention_exemption() -> None:
    facts = healthy()
    facts.runs.append(RunFacts(id="12", task_id="1", status="cancelled", provider_work_started=False, session_id="s-1"))
    assert "lifecycle.runs-succeeded" in failed_ids(facts)


def test_a_reader_without_the_declared_read_receipts_fails_naming_the_run() -> None:
    """The product declared receipts; a run it says read a message yet that reported no read is missing them."""
    facts = healthy()
    facts.runs[1].received_message_ids = None  # the runner reported no read receipts
    [check] = [c for c in grade_lifecycle(facts) if c.id == "lifecycle.messages-consumed"]
    assert check.failed and check.unobservable is None
    assert "the product declared receipts; run 11 has none, so its reading message(s) 5 is unconfirmed" in check.detail


def test_hand_overs_are_counted_from_the_readers_receipts_not_the_products_consumer() -> None:
    """The product records no consumer and no wake; two runs' own reads name the message: handed twice. The rule
    that started from the product's "consumed by" passed this."""
    facts = healthy()
    facts.messages[0].consumed_by_run_id = None
    facts.runs[0].received_message_ids = ["5"]
    [check] = [c for c in grade_lifecycle(facts) if c.id == "lifecycle.messages-handed-once"]
    assert not check.passed and "handed to runs ['10', '11']" in check.detail
