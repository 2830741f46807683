"""Defects in how user messages are stored and handed to the agent."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from typing import Any

from ..models import Comment
from .registry import declarer
from .sql import store_user_message

defect = declarer("messages")


@defect("message-stored-twice", at="message.stored", summary="a user message is stored twice")
def stored_again(_: None, *, conn: sqlite3.Connection, task_id: int, body: str, **__: Any) -> None:
    store_user_message(conn, task_id, body)


@defect(
    "feedback-copied-to-parent",
    at="message.stored",
    summary="a user message on a child task is also posted to its parent's thread",
)
def copied_to_parent(_: None, *, conn: sqlite3.Connection, task_id: int, body: str, **__: Any) -> None:
    parent = conn.execute("SELECT parent_id FROM tasks WHERE id = ?", (task_id,)).fetchone()
    if parent is not None and parent["parent_id"] is not None:
        store_user_message(conn, parent["parent_id"], body)


@defect(
    "message-stored-crlf",
    at="message.body",
    summary="a user message is stored with CRLF line breaks: the page shows it as typed, the API answers other text",
)
def crlf(body: str, **_: Any) -> str:
    return body.replace("\n", "\r\n")


@defect(
    "message-lost",
    at="inbox.handed",
    summary="the inbox marks messages consumed by the run but hands the agent none of them",
)
def none_handed(ids: list[int], **_: Any) -> list[int]:
    return []


@defect(
    "read-still-unread",
    at="task.unread-count",
    summary="messages marked read by a run stay in the task's unread counter",
)
def all_unread(counted: int, *, thread: list[Comment], **_: Any) -> int:
    return len([c for c in thread if c.author_kind == "user"])


# Messages a run's end already counted unread again: a cache in the controller's memory (gone with the process).
_unread_again: set[int] = set()


@defect(
    "consumed-message-woken-again",
    at="run.ended",
    summary="a run that read a message counts it unread again when it ends: the task wakes once more and the new run"
    " is handed the message again, though the first run consumed it",
)
def unread_again(_: None, *, conn: sqlite3.Connection, run: sqlite3.Row, status: str, **__: Any) -> None:
    _count_unread_again(conn, run, status)


def _count_unread_again(conn: sqlite3.Connection, run: sqlite3.Row, status: str) -> bool:
    """A succeeded run's read messages unread again (once each), in the same transaction as its end, so the task
    never looks settled between; True when there were any."""
    read = [
        row["id"]
        for row in conn.execute(
            "SELECT id FROM comments WHERE consumed_by_run_id = ? AND author_kind = 'user'", (run["id"],)
        )
        if row["id"] not in _unread_again
    ]
    if status != "succeeded" or not read:
        return False
    _unread_again.update(read)
    conn.executemany("UPDATE comments SET consumed_by_run_id = NULL WHERE id = ?", [(i,) for i in read])
    return True


@defect(
    "message-redone-in-a-fresh-workspace",
    at="run.ended",
    summary="a run that read a message counts it unread again when it ends and clears the task's workspace: the"
    " next run is handed the message again with nothing of the work done, and does the requested work a second time",
)
def redone_from_scratch(_: None, *, conn: sqlite3.Connection, run: sqlite3.Row, status: str, **__: Any) -> None:
    if not _count_unread_again(conn, run, status):
        return
    # The controller keeps a run's log under <data>/logs and a task's workspace under <data>/workspaces.
    data_dir = Path(run["log_path"]).parents[1]
    shutil.rmtree(data_dir / "workspaces" / f"task-{run['task_id']}", ignore_errors=True)
