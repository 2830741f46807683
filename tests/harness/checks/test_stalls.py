"""Stalls are named from the records once they last: a run retrying server errors, a decision no run took up."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from harness.checks.stalls import (
    MIN_ERRORS,
    NEVER_WOKEN_S,
    RUN_REQUEST_FAILED,
    RUN_RETRYING_ERRORS,
    TASK_NEVER_WOKEN,
    never_woken,
    retrying_errors,
)
from harness.core.product_records import Activity, Interaction, Run, Task

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def at(seconds: float) -> str:
    return (T0 + timedelta(seconds=seconds)).isoformat()


def run(status: str = "running", last_step_s: float | None = 0.0) -> Run:
    receipts = (
        []
        if last_step_s is None
        else [
            {
                "id": "r1",
                "seq": 0,
                "tool": "write_file",
                "target": "slugify.py",
                "ok": True,
                "detail": "",
                "created_at": at(last_step_s),
            }
        ]
    )
    return Run.model_validate(
        {
            "id": 1,
            "task_id": 1,
            "agent_id": 1,
            "status": status,
            "identity": {"runner_instance_id": "r", "pid": 10, "process_start_time": 1.0},
            "queued_at": at(0),
            "started_at": at(0),
            "ended_at": None,
            "cost_cents": 0,
            "error_code": None,
            "terminal": None,
            "process_group_gone": None,
            "receipts": receipts,
        }
    )


def errors(*seconds: float, run_id: int = 1) -> list[Activity]:
    return [
        Activity(id=n, at=at(s), kind=RUN_REQUEST_FAILED, task_id=1, run_id=run_id, message="POST /deliveries 500")
        for n, s in enumerate(seconds)
    ]


def test_server_errors_lasting_with_no_step_between_name_the_stall() -> None:
    found = retrying_errors([run()], errors(1, 2, 4, 7))
    assert found is not None and found.id == RUN_RETRYING_ERRORS and found.failed
    assert "run 1 has had 4 server errors over 6 s" in found.detail


def test_a_few_errors_a_short_burst_progress_since_or_an_ended_run_are_no_stall() -> None:
    assert retrying_errors([run()], errors(*range(1, MIN_ERRORS))) is None  # too few
    assert retrying_errors([run()], errors(1, 1.5, 2, 2.5)) is None  # not lasting
    assert retrying_errors([run(last_step_s=8)], errors(1, 2, 4, 7)) is None  # a step after them: it got through
    assert retrying_errors([run(status="succeeded")], errors(1, 2, 4, 7)) is None
    assert retrying_errors([run()], errors(1, 2, 4, 7, run_id=2)) is None  # another run's errors
    assert retrying_errors([run(last_step_s=None)], errors(1, 2, 4, 7)) is not None  # no step at all


def interaction(status: str = "declined", decided_s: float | None = 10.0, run_id: int = 1) -> Interaction:
    return Interaction.model_validate(
        {
            "id": 7,
            "task_id": 1,
            "run_id": run_id,
            "agent_id": 1,
            "kind": "connection_intent",
            "action": "connect",
            "agent_name": "Lead",
            "status": status,
            "outcome": "declined",
            "decided_at": None if decided_s is None else at(decided_s),
            "created_at": at(1),
        }
    )


def task_with(*runs: Run, status: str = "blocked") -> Task:
    return Task.model_validate(
        {
            "id": 1,
            "title": "Notes",
            "status": status,
            "assignee_id": 1,
            "assignee_name": "Lead",
            "parent_id": None,
            "created_at": at(0),
            "updated_at": at(0),
            "body": "",
            "comments": [],
            "runs": [r.model_dump() for r in runs],
            "deliveries": [],
            "children": [],
            "active_run_id": None,
            "unconsumed_user_messages": 0,
        }
    )


def ended(run_id: int, queued_s: float, ended_s: float) -> Run:
    return run(status="succeeded").model_copy(update={"id": run_id, "queued_at": at(queued_s), "ended_at": at(ended_s)})


def test_a_decision_no_run_took_up_is_named_once_it_has_waited() -> None:
    tasks = [task_with(ended(1, 0, 5))]
    found = never_woken(tasks, [interaction()], T0 + timedelta(seconds=10 + NEVER_WOKEN_S))
    assert found is not None and found.id == TASK_NEVER_WOKEN and found.failed
    assert "request 7 on task 1 was declined" in found.detail


def test_a_decision_taken_up_pending_recent_or_read_by_the_asking_run_is_no_stall() -> None:
    later = T0 + timedelta(seconds=60)
    assert never_woken([task_with(ended(1, 0, 5), ended(2, 11, 20))], [interaction()], later) is None  # woken
    assert never_woken([task_with(ended(1, 0, 5))], [interaction(status="pending", decided_s=None)], later) is None
    assert never_woken([task_with(ended(1, 0, 5))], [interaction()], T0 + timedelta(seconds=12)) is None  # too soon
    assert never_woken([task_with(ended(1, 0, 30), status="done")], [interaction()], later) is None  # asker read it
    assert never_woken([task_with(ended(1, 0, 30))], [interaction()], later) is not None  # ended after, unsettled
    assert never_woken([task_with(run())], [interaction()], later) is None  # a run is still active
