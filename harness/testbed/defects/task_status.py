"""Defects in the status a task takes as its runs start and end."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from .registry import declarer

defect = declarer("task-status")


@defect(
    "done-while-running",
    at="run.start.task-status",
    summary="a run starting sets its task Done instead of in progress, while the run works",
)
def done_at_start(status: str, **_: Any) -> str:
    return "done"


@defect(
    "run-end-keeps-task-in-progress",
    at="run.end.move-task",
    summary="a run's end never moves its task on: the task stays in progress with nothing running",
)
def never_moves(move_task_on: Callable[..., None], **_: Any) -> Callable[..., None]:
    return lambda *_args, **_kwargs: None


@defect(
    "stopped-task-never-done",
    at="run.end.declared-status",
    summary="once a run on a task was stopped, the Done a later run declares is dropped: the task ends in review",
)
def stopped_mark_kept(declared: str | None, *, conn: sqlite3.Connection, run: sqlite3.Row, **_: Any) -> str | None:
    stopped = conn.execute(
        "SELECT 1 FROM runs WHERE task_id = ? AND status = 'cancelled' LIMIT 1", (run["task_id"],)
    ).fetchone()
    return None if stopped is not None else declared  # a "was stopped" mark never cleared: the rules leave it in review
