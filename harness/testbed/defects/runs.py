"""Defects in a run's records: its runner's identity, the task's active-run pointer, when a run starts."""

from __future__ import annotations

import sqlite3
import uuid
from typing import Any

from ..db import now
from ..models import Run, RunIdentity
from .registry import declarer

defect = declarer("runs")


@defect(
    "runner-identity-changes",
    at="receipt.stored",
    summary="every receipt re-registers the run under a new runner instance id, mid-run",
)
def new_runner_id(_: None, *, conn: sqlite3.Connection, run: sqlite3.Row, **__: Any) -> None:
    conn.execute("UPDATE runs SET runner_instance_id = ? WHERE id = ?", (uuid.uuid4().hex, run["id"]))


@defect(
    "stale-active-run-pointer",
    at="task.active-run",
    summary="the task's active-run pointer keeps naming its first run while a later run is active",
)
def first_run_active(pointer: int | None, *, runs: list[Run], **_: Any) -> int | None:
    return runs[0].id if pointer is not None else None


@defect(
    "ended-run-still-active",
    at="task.active-run",
    summary="a task keeps naming its last run active after that run ended (cleared only when the next one starts)",
)
def last_run_active(pointer: int | None, *, runs: list[Run], **_: Any) -> int | None:
    return runs[-1].id if pointer is None and runs else pointer


@defect(
    "finished-task-runs-again",
    at="run.ended",
    summary="the first run that finishes its task (Done) has it queued once more, under that run's own cause:"
    " a run nobody asked for",
)
def wakes_finished_task(_: None, *, conn: sqlite3.Connection, run: sqlite3.Row, **__: Any) -> None:
    task = conn.execute("SELECT status FROM tasks WHERE id = ?", (run["task_id"],)).fetchone()
    finished_before = conn.execute(
        "SELECT 1 FROM runs WHERE task_id = ? AND id < ? AND status = 'succeeded' AND settle_status = 'done'",
        (run["task_id"], run["id"]),
    ).fetchone()
    if task is not None and task["status"] == "done" and finished_before is None:
        conn.execute("UPDATE tasks SET wake = 1, wake_cause = ? WHERE id = ?", (run["cause"], run["task_id"]))


@defect(
    "run-recorded-per-step",
    at="receipt.stored",
    summary="every receipt of a run leaves a finished copy of the run's record behind: dozens of run records",
)
def copy_per_step(_: None, *, conn: sqlite3.Connection, run: sqlite3.Row, **__: Any) -> None:
    """A retry in the bookkeeping: each step stores a finished copy of its run."""
    conn.execute(
        "INSERT INTO runs (task_id, agent_id, adapter, model, status, runner_instance_id, pid, process_start_time,"
        " queued_at, started_at, ended_at)"
        " SELECT task_id, agent_id, adapter, model, 'succeeded', runner_instance_id, pid, process_start_time,"
        " queued_at, started_at, ? FROM runs WHERE id = ?",
        (now(), run["id"]),
    )


@defect(
    "run-identity-not-served",
    at="task.runs",
    summary="a task's runs are served without their runner's instance id, pid and start time",
)
def identity_blank(runs: list[Run], **_: Any) -> list[Run]:
    blank = RunIdentity(runner_instance_id=None, pid=None, process_start_time=None)
    return [run.model_copy(update={"identity": blank}) for run in runs]
