"""Defects in Stop: the runner's process group, the run's record of its end, what follows a Stop."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from ..db import Database
from ..models import Run
from .registry import declarer
from .sql import store_user_message

defect = declarer("stop")


@defect(
    "stop-without-signal",
    at="stop.signal",
    summary="Stop records the run cancelled and its process group gone without signalling the runner",
)
def says_gone(stop_group: Callable[..., bool], **_: Any) -> Callable[..., bool]:
    return lambda *_args, **_kwargs: True


@defect(
    "stop-retries-run",
    at="stop.after",
    summary="Stop wakes the stopped task as if its runner had been lost: the work starts again by itself",
)
def wakes_task(_: None, *, db: Database, run: sqlite3.Row, **__: Any) -> None:
    with db.transaction() as conn:
        conn.execute(
            "UPDATE tasks SET wake = 1, wake_cause = 'recovery' WHERE id = ? AND status != 'cancelled'",
            (run["task_id"],),
        )


@defect(
    "stop-then-message-twice",
    at="message.stored",
    summary="the first message after a Stop is stored twice (once for the new run, once to resume the stopped one)",
)
def stored_twice_after_stop(_: None, *, conn: sqlite3.Connection, task_id: int, body: str, **__: Any) -> None:
    last = conn.execute("SELECT status FROM runs WHERE task_id = ? ORDER BY id DESC LIMIT 1", (task_id,)).fetchone()
    if last is not None and last["status"] == "cancelled":
        store_user_message(conn, task_id, body)


@defect(
    "stop-records-succeeded",
    at="stop.outcome",
    summary="Stop kills the runner but records the run succeeded instead of cancelled",
)
def succeeded(outcome: tuple[str, str | None], **_: Any) -> tuple[str, str | None]:
    return "succeeded", None


@defect(
    "stop-end-not-recorded",
    at="stop.record-end",
    summary="Stop kills the runner's process group but the run stays recorded running",
)
def never_recorded(end_run: Callable[..., bool], **_: Any) -> Callable[..., bool]:
    return lambda *_args, **_kwargs: False


@defect(
    "stop-result-hidden",
    at="task-page.last-stopped",
    summary="the task page never reports a Stop: the run is cancelled, the page says nothing about it",
)
def hidden(stopped: Run | None, **_: Any) -> Run | None:
    return None
