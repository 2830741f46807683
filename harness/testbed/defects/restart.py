"""Defects in a controller restart: shutting down, re-adopting running runners, what survives."""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path
from typing import Any

from ..db import Database, now
from ..supervisor import Identity, Supervisor
from .registry import declarer
from .sql import adopted_at

defect = declarer("restart")
log = logging.getLogger("testbed.defects")


@defect(
    "restart-second-run",
    at="restart.runner-alive",
    summary="after a restart the live runner's run is marked lost and a second run is started instead",
)
def taken_for_lost(alive: bool, *, db: Database, run: sqlite3.Row, **_: Any) -> bool:
    log.warning("defect restart-second-run: run %s not re-adopted; starting another", run["id"])
    with db.transaction() as conn:
        conn.execute("UPDATE tasks SET wake = 1, wake_cause = 'recovery' WHERE id = ?", (run["task_id"],))
    return False


@defect(
    "restart-inbox-lost",
    at="inbox.handed",
    summary="after a restart, a re-adopted runner's inbox marks messages consumed but hands over none",
)
def none_after_adoption(ids: list[int], *, db: Database, run: sqlite3.Row, **_: Any) -> list[int]:
    return [] if adopted_at(db.connection(), run["id"]) is not None else ids


@defect(
    "restart-inbox-again",
    at="inbox.handed",
    summary="after a restart, every read of a re-adopted runner hands over again what it already read since",
)
def hands_again(ids: list[int], *, db: Database, run: sqlite3.Row, **_: Any) -> list[int]:
    adopted = adopted_at(db.connection(), run["id"])
    if adopted is None:
        return ids
    since = db.all(
        "SELECT id FROM comments WHERE consumed_by_run_id = ? AND consumed_at >= ? AND author_kind = 'user'",
        run["id"],
        adopted,
    )
    return sorted({*ids, *(row["id"] for row in since)})


@defect(
    "restart-drops-message",
    at="restart.recovering-run",
    summary="a restart loses the newest user message on each task with a running run",
)
def drops_newest_message(_: None, *, db: Database, run: sqlite3.Row, **__: Any) -> None:
    with db.transaction() as conn:
        newest = conn.execute(
            "SELECT id FROM comments WHERE task_id = ? AND author_kind = 'user' ORDER BY id DESC LIMIT 1",
            (run["task_id"],),
        ).fetchone()
        if newest is not None:
            conn.execute("DELETE FROM comments WHERE id = ?", (newest["id"],))
            log.warning("defect restart-drops-message: dropped message %s of task %s", newest["id"], run["task_id"])


@defect(
    "restart-fails-last-step",
    at="restart.recovering-run",
    summary="re-adopting a run after a restart rewrites its last receipt as failed (interrupted)",
)
def fails_last_step(_: None, *, db: Database, run: sqlite3.Row, **__: Any) -> None:
    with db.transaction() as conn:
        conn.execute(
            "UPDATE receipts SET ok = 0, detail = 'interrupted by a controller restart' WHERE rowid = "
            "(SELECT MAX(rowid) FROM receipts WHERE run_id = ?)",
            (run["id"],),
        )
    log.warning("defect restart-fails-last-step: marked the last receipt of run %s failed", run["id"])


@defect(
    "restart-reuses-instance-id",
    at="controller.instance-id",
    summary="the controller keeps its instance id in its data folder and reports the same one after a restart",
)
def kept_instance_id(fresh: str, *, data_dir: Path, **_: Any) -> str:
    kept = data_dir / "controller-instance-id"
    if kept.exists():
        return kept.read_text().strip()
    kept.write_text(fresh)
    return fresh


@defect(
    "restart-kills-runners",
    at="controller.shutdown",
    summary="a graceful controller shutdown kills its runners' process groups instead of leaving them working",
)
def kills_runners(_: None, *, db: Database, supervisor: Supervisor, **__: Any) -> None:
    for row in db.all(
        "SELECT * FROM runs WHERE status = 'running' AND pid IS NOT NULL AND process_start_time IS NOT NULL"
    ):
        log.warning("defect restart-kills-runners: killing run %s (pid %s)", row["id"], row["pid"])
        supervisor.stop_group(Identity(pid=row["pid"], start_time=row["process_start_time"]))


@defect(
    "shutdown-hangs",
    at="controller.shutdown",
    summary="a graceful shutdown never finishes: the controller outlasts SIGTERM and no new one can take over",
)
def hangs(_: None, **__: Any) -> None:
    log.warning("defect shutdown-hangs: the shutdown waits for ever")
    threading.Event().wait()


@defect(
    "restart-receipt-lost",
    at="receipt.stored",
    summary="the first receipt a re-adopted runner sends after a restart is acknowledged but never stored",
)
def drops_first_receipt(_: None, *, conn: sqlite3.Connection, run: sqlite3.Row, **__: Any) -> None:
    adopted = adopted_at(conn, run["id"])
    if adopted is None:
        return
    answered = conn.execute(  # receipts answered since the adoption (this one is answered after the point)
        "SELECT COUNT(*) AS n FROM events WHERE run_id = ? AND kind = 'receipt' AND created_at >= ?",
        (run["id"], adopted),
    ).fetchone()
    if answered["n"] == 0:  # the first one: dropped, though the runner is told it was recorded
        conn.execute(
            "DELETE FROM receipts WHERE rowid = (SELECT MAX(rowid) FROM receipts WHERE run_id = ?)", (run["id"],)
        )


def _reply_again(conn: sqlite3.Connection, run: sqlite3.Row, body: str, run_id: int | None) -> None:
    """A re-adopted run's reply stored once more, under ``run_id``: a run's reply stored again, or a note of none."""
    if adopted_at(conn, run["id"]) is not None:
        conn.execute(
            "INSERT INTO comments (task_id, author_kind, agent_id, run_id, body, created_at) "
            "VALUES (?, 'agent', ?, ?, ?, ?)",
            (run["task_id"], run["agent_id"], run_id, body, now()),
        )


@defect(
    "restart-replies-twice",
    at="reply.stored",
    summary="after a restart, every reply a re-adopted run posts is stored twice",
)
def replies_twice(_: None, *, conn: sqlite3.Connection, run: sqlite3.Row, body: str, **__: Any) -> None:
    _reply_again(conn, run, body, run["id"])


@defect(
    "restart-reply-echoed",
    at="reply.stored",
    summary="after a restart each reply of the re-adopted runner is echoed again as a note of no run",
)
def echoed_without_run(_: None, *, conn: sqlite3.Connection, run: sqlite3.Row, body: str, **__: Any) -> None:
    _reply_again(conn, run, body, None)
