"""Stalls: what the product is doing while a story waits and nothing comes, named before the deadline names nothing.

A wait that runs out says only what did not come (``expect.task-finished``).
When the product's own records show why, a check names it instead, as soon
as the records show it lasting, well before the attempt's deadline: a run
whose requests the product keeps answering with server errors (the runner
retries them for minutes) is not working, it is stuck.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from harness.core.records import CheckRecord
from harness.products.records import Activity, Run

RUN_RETRYING_ERRORS = "stall.run-retrying-errors"
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
