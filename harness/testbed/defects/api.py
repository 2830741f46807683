"""Defects in the public API's answers: a task read that breaks once the task has a successful run."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from fastapi import HTTPException
from fastapi.responses import HTMLResponse

from ..db import Database
from ..models import Task
from .registry import declarer

defect = declarer("api")

HANG_S = 20.0
"""Longer than any client of the API waits (the harness's drivers give up after 15 s)."""

Reader = Callable[[Database, int], Any]


def _once_succeeded(read: Reader, broken: Callable[[Database, int], Any]) -> Reader:
    """``read``, except for a task with a succeeded run, which ``broken`` answers."""

    def reading(db: Database, task_id: int) -> Any:
        if db.one("SELECT 1 FROM runs WHERE task_id = ? AND status = 'succeeded' LIMIT 1", task_id):
            return broken(db, task_id)
        return read(db, task_id)

    return reading


@defect(
    "task-read-server-error",
    at="api.task-read",
    summary="once a run on a task has succeeded, reading that task answers 500 (the product's API breaks on its own records)",
)
def server_error(read: Reader, **_: Any) -> Reader:
    def error(db: Database, task_id: int) -> Task:
        raise HTTPException(status_code=500, detail="internal error: the task's run history could not be serialized")

    return _once_succeeded(read, error)


@defect(
    "task-read-not-json",
    at="api.task-read",
    summary="once a run on a task has succeeded, reading that task answers 200 with an HTML error page, not JSON",
)
def not_json(read: Reader, **_: Any) -> Reader:
    return _once_succeeded(
        read, lambda db, task_id: HTMLResponse("<html><body><h1>Something went wrong</h1></body></html>")
    )


@defect(
    "task-read-hangs",
    at="api.task-read",
    summary="once a run on a task has succeeded, reading that task gives no answer for longer than any client waits",
)
def hangs(read: Reader, **_: Any) -> Reader:
    def late(db: Database, task_id: int) -> Any:
        time.sleep(HANG_S)
        return read(db, task_id)

    return _once_succeeded(read, late)
