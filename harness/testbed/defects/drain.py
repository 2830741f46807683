"""Defects in a graceful drain (testbed/drain.py): how the interrupted run is recorded, its retry, what it hands on."""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.agents.workspace import zip_workspace

from ..db import now
from ..deliveries import store
from .registry import declarer

defect = declarer("drain")
log = logging.getLogger("testbed.defects")

Queue = Callable[[sqlite3.Connection, sqlite3.Row], "int | None"]


@defect(
    "drain-records-success",
    at="drain.outcome",
    summary="the drain records the run it interrupted as succeeded, a success it never finished",
)
def recorded_succeeded(_: tuple[str, str | None], **__: Any) -> tuple[str, str | None]:
    return "succeeded", None


@defect(
    "drain-queues-no-retry",
    at="drain.queue-retry",
    summary="the drain records the run interrupted but queues no retry: its work waits for ever",
)
def no_retry(_: Queue, **__: Any) -> Queue:
    def queue_nothing(conn: sqlite3.Connection, run: sqlite3.Row) -> int | None:
        log.warning("defect drain-queues-no-retry: no retry for run %s", run["id"])
        return None

    return queue_nothing


@defect(
    "drain-marks-message-read",
    at="drain.interrupted",
    summary="the drain marks the task's unread messages read by the run it interrupts: the retry is never handed them",
)
def marks_read(_: None, *, conn: sqlite3.Connection, run: sqlite3.Row, **__: Any) -> None:
    conn.execute(
        "UPDATE comments SET consumed_by_run_id = ?, consumed_at = ? "
        "WHERE task_id = ? AND author_kind = 'user' AND consumed_by_run_id IS NULL",
        (run["id"], now(), run["task_id"]),
    )


@defect(
    "drain-delivers-interrupted-work",
    at="drain.interrupted",
    summary="the drain keeps the interrupted run's half-done workspace as a delivery of that run, beside the retry's",
)
def delivers_half_done(_: None, *, conn: sqlite3.Connection, run: sqlite3.Row, data_dir: Path, **__: Any) -> None:
    data = zip_workspace(data_dir / "workspaces" / f"task-{run['task_id']}")
    digest, names = store(data_dir, data)
    conn.execute(
        "INSERT INTO deliveries (task_id, run_id, sha256, size, files_json, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        (run["task_id"], run["id"], digest, len(data), json.dumps(names), now()),
    )
    log.warning("defect drain-delivers-interrupted-work: run %s delivered %s", run["id"], digest[:12])
