"""Rules over a routine that fired: plain ids and statuses, for any product.

A routine fired by one webhook delivery, delivered twice (the sender's
retry), must have started one task, one piece of work, and its record (the
API's and the page's) must list that task with the status the task has.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.core.product_records import RecordId, RoutineFire, ShownRoutineRun, Task, TaskSummary
from harness.core.records import CheckRecord

FIRED_ONCE = "routine.fired-once"
RECORD_SHOWS_RUN = "routine.record-shows-run"
PAGE_SHOWS_RUN = "routine.page-shows-run"


def fired_once(started: Sequence[TaskSummary], delivery_id: str, deliveries: int) -> CheckRecord:
    """One delivery (sent ``deliveries`` times) started exactly one task."""
    listed = ", ".join(f"task {t.id} ({t.status})" for t in started)
    detail = f"delivery {delivery_id}, sent {deliveries} time(s), started {len(started)} task(s): {listed or 'none'}"
    return CheckRecord(id=FIRED_ONCE, passed=len(started) == 1, detail=detail)


def record_lists(fires: Sequence[RoutineFire], task: Task) -> CheckRecord:
    """The routine's record lists one fire, and it names the task the delivery started."""
    named = [str(fire.task_id) for fire in fires]
    ok = named == [str(task.id)]
    detail = f"the routine's record lists {len(fires)} run(s), of tasks {named}; the delivery started task {task.id}"
    return CheckRecord(id=RECORD_SHOWS_RUN, passed=ok, detail=detail)


def page_lists(shown: Sequence[ShownRoutineRun], task_id: RecordId, status: str) -> CheckRecord:
    """The routine's page lists the run once, linking its task, with the status the task has now."""
    rows = [row for row in shown if row.task_id == str(task_id)]
    ok = len(shown) == 1 and len(rows) == 1 and rows[0].status == status
    listed = ", ".join(f"task {row.task_id} {row.status}" for row in shown) or "no run"
    detail = f"the routine's page shows {listed}; task {task_id} is {status}"
    return CheckRecord(id=PAGE_SHOWS_RUN, passed=ok, detail=detail)
