"""Routines: work that starts itself when a trigger fires, for the agent the routine names.

A routine holds a task's title and instructions and the agent it goes to. Its
webhook trigger is a URL with a secret key an outside system posts to (a CI
run, a form, a nightly job); each delivery names itself with an
``Idempotency-Key`` header, as senders that retry do. A delivery fires the
routine once: it creates one task for the routine's agent (which wakes the
scheduler like any assignment) and one entry in the routine's record. A
delivery sent again with the same key (the sender retrying after a lost
answer) is answered with the fire it already made, and nothing runs twice.
"""

from __future__ import annotations

import secrets
import sqlite3

from fastapi import HTTPException
from pydantic import BaseModel, Field

from . import records
from .api import insert_task
from .db import Database, now, record_activity
from .failpoints import failpoint
from .models import RowId, Strict, TaskCreate, TaskStatus

WEBHOOK_PATH = "/api/routine-webhooks/{key}"


class RoutineCreate(Strict):
    """A new routine: the task it creates each time it fires, and the agent it goes to."""

    title: str = Field(min_length=1, max_length=200)
    body: str = Field(min_length=1, max_length=20_000)
    assignee_id: RowId


class RoutineFire(BaseModel):
    """One time the routine fired: what fired it and the task it started, with that task's status now."""

    id: int
    source: str
    idempotency_key: str
    task_id: int
    task_status: TaskStatus
    created_at: str


class Routine(BaseModel):
    id: int
    title: str
    body: str
    assignee_id: int
    assignee_name: str
    webhook_url: str = Field(description="the trigger's path, secret key included: whoever holds it can fire it")
    fires: list[RoutineFire]
    created_at: str


class FireResult(BaseModel):
    """What a webhook delivery did: the fire it made, or the one an earlier delivery with its key made."""

    fire: RoutineFire
    replayed: bool


def _fire(db: Database, row: sqlite3.Row) -> RoutineFire:
    task = db.one("SELECT status FROM tasks WHERE id = ?", row["task_id"])
    assert task is not None
    return RoutineFire(
        id=row["id"],
        source=row["source"],
        idempotency_key=row["idempotency_key"],
        task_id=row["task_id"],
        task_status=task["status"],
        created_at=row["created_at"],
    )


def routine(db: Database, routine_id: int) -> Routine:
    row = records.row_or_404(db, "SELECT * FROM routines WHERE id = ?", "routine", routine_id)
    fires = db.all("SELECT * FROM routine_fires WHERE routine_id = ? ORDER BY id", routine_id)
    shown = failpoint("routine.fires", [_fire(db, fire) for fire in fires], db=db, routine_id=routine_id)
    return Routine(
        id=row["id"],
        title=row["title"],
        body=row["body"],
        assignee_id=row["assignee_id"],
        assignee_name=records.agent(db, row["assignee_id"]).name,
        webhook_url=WEBHOOK_PATH.format(key=row["webhook_key"]),
        fires=shown,
        created_at=row["created_at"],
    )


def routines(db: Database) -> list[Routine]:
    return [routine(db, row["id"]) for row in db.all("SELECT id FROM routines ORDER BY id")]


def create(db: Database, payload: RoutineCreate) -> Routine:
    with db.transaction() as conn:
        if conn.execute("SELECT 1 FROM agents WHERE id = ?", (payload.assignee_id,)).fetchone() is None:
            raise HTTPException(status_code=400, detail=f"assignee_id: no agent {payload.assignee_id}")
        cursor = conn.execute(
            "INSERT INTO routines (title, body, assignee_id, webhook_key, created_at) VALUES (?, ?, ?, ?, ?)",
            (payload.title, payload.body, payload.assignee_id, secrets.token_urlsafe(18), now()),
        )
        routine_id = int(cursor.lastrowid or 0)
        record_activity(conn, "routine_created", f"Routine {routine_id} created: {payload.title}")
    return routine(db, routine_id)


def fire_webhook(db: Database, key: str, idempotency_key: str) -> FireResult:
    """Fire the routine whose webhook key this is, once per ``idempotency_key``."""
    with db.transaction() as conn:
        row = conn.execute("SELECT * FROM routines WHERE webhook_key = ?", (key,)).fetchone()
        if row is None:
            raise HTTPException(status_code=404, detail="no routine has this webhook")
        key_seen = failpoint("routine.delivery-key", idempotency_key)
        earlier = conn.execute(
            "SELECT * FROM routine_fires WHERE routine_id = ? AND source = 'webhook' AND idempotency_key = ?",
            (row["id"], key_seen),
        ).fetchone()
        if earlier is not None:
            fire_id, replayed = int(earlier["id"]), True
        else:
            fire_id, replayed = _start(conn, row, key_seen), False
    fire = db.one("SELECT * FROM routine_fires WHERE id = ?", fire_id)
    assert fire is not None
    return FireResult(fire=_fire(db, fire), replayed=replayed)


def _start(conn: sqlite3.Connection, routine_row: sqlite3.Row, idempotency_key: str) -> int:
    """The routine's task for its agent (the assignment wakes the scheduler) and its entry in the record."""
    task = TaskCreate(title=routine_row["title"], body=routine_row["body"], assignee_id=routine_row["assignee_id"])
    task_id = insert_task(conn, task, wake=failpoint("routine.task-wakes", True))
    stamp = now()
    cursor = conn.execute(
        "INSERT INTO routine_fires (routine_id, source, idempotency_key, task_id, created_at) "
        "VALUES (?, 'webhook', ?, ?, ?)",
        (routine_row["id"], idempotency_key, task_id, stamp),
    )
    record_activity(
        conn, "routine_fired", f"Routine {routine_row['id']} fired by webhook: task {task_id}", task_id=task_id
    )
    return int(cursor.lastrowid or 0)
