"""Stalls: what the product is doing while a story waits and nothing comes, named before the deadline names nothing.

A wait that runs out says only what did not come (``expect.task-finished``).
When the product's own records show why, a check names it instead, as soon
as the records show it lasting, well before the attempt's deadline: a run
whose requests the product keeps answering with server errors (the runner
retries them for minutes) is not working, it is stuck; a task whose agent
asked a person and ended its run, and that no run took up again after the
person decided, waits for nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from harness.core.product_records import Activity, Interaction, Run, Task
from harness.core.records import CheckRecord

RUN_RETRYING_ERRORS = "stall.run-retrying-errors"
TASK_NEVER_WOKEN = "stall.task-never-woken"
SETTLED = frozenset({"done", "in_review", "cancelled"})
NEVER_WOKEN_S = 15.0
"""Seconds after a decision by which a product that wakes a task for it has started a run (it takes one tick)."""
RUN_REQUEST_FAILED = "run_request_failed"
"""The activity kind under which a product notes a server error it answered to one of a run's requests."""
MIN_ERRORS = 3
MIN_SPAN_S = 5.0
"""A run is retrying, not unlucky, once this many server errors span this long with no step of it in between."""


def _at(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp)


def retrying_errors(runs: Sequence[Run], activity: Sequence[Activity]) -> CheckRecord | None:
    """The failed check for the first active run stuck retrying server errors since its last step; None if none is."""
    for run in (r for r in runs if r.status in ("queued", "running")):
        last_step = max((_at(r.created_at) for r in run.receipts), default=None)
        errors = sorted(
            _at(a.at)
            for a in activity
            if a.kind == RUN_REQUEST_FAILED
            and str(a.run_id) == str(run.id)
            and (last_step is None or _at(a.at) > last_step)
        )
        if len(errors) >= MIN_ERRORS and (errors[-1] - errors[0]).total_seconds() >= MIN_SPAN_S:
            said = next(
                a.message for a in reversed(activity) if a.kind == RUN_REQUEST_FAILED and str(a.run_id) == str(run.id)
            )
            return CheckRecord(
                id=RUN_RETRYING_ERRORS,
                passed=False,
                detail=f"run {run.id} has had {len(errors)} server errors over "
                f"{(errors[-1] - errors[0]).total_seconds():.0f} s and no step since (the last: {said}): it is retrying,"
                " not working",
            )
    return None


def never_woken(tasks: Sequence[Task], interactions: Sequence[Interaction], now: datetime) -> CheckRecord | None:
    """The failed check for the first decision no run took up; None if every decided request was taken up.

    A wake is owed once the run that asked has ended and left its task
    unsettled (not done, in review or cancelled): only a new run can read the
    answer. It is missing when, well after both the decision and that end, no
    run on the task has started since the decision and none is active.
    """
    by_id = {str(task.id): task for task in tasks}
    for request in (i for i in interactions if i.status != "pending" and i.decided_at):
        task = by_id.get(str(request.task_id))
        asked = next((r for r in task.runs if str(r.id) == str(request.run_id)), None) if task else None
        if task is None or asked is None or asked.ended_at is None or request.decided_at is None:
            continue
        decided = _at(request.decided_at)
        owed_since = max(decided, _at(asked.ended_at))
        if task.status in SETTLED or (now - owed_since).total_seconds() < NEVER_WOKEN_S:
            continue
        if any(r.active or _at(r.queued_at) >= decided for r in task.runs):
            continue
        return CheckRecord(
            id=TASK_NEVER_WOKEN,
            passed=False,
            detail=f"request {request.id} on task {task.id} was {request.status} "
            f"{(now - decided).total_seconds():.0f} s ago; run {asked.id} that asked has ended, the task is "
            f"{task.status}, and no run has started on it since: nothing will read the answer",
        )
    return None
