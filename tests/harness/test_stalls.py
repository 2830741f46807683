"""A run retrying server errors is named as stuck once its records show it lasting, never on one error."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from harness.checks.stalls import MIN_ERRORS, RUN_REQUEST_FAILED, RUN_RETRYING_ERRORS, retrying_errors
from harness.products.records import Activity, Run

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
