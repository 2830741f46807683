"""Read side: turns database rows into the public API models.

The API, the agent API and the web pages all read through these functions,
so a person in the browser and a story reading JSON see the same state.
"""

from __future__ import annotations

import json
import math
import sqlite3

from fastapi import HTTPException

from .db import ACTIVE_RUN_STATUSES, Database
from .failpoints import failpoint
from .models import (
    Activity,
    Agent,
    Comment,
    Company,
    Delivery,
    Receipt,
    Run,
    RunIdentity,
    Spend,
    Task,
    TaskSummary,
)
from .sandbox.leases import lease_of


def not_found(kind: str, ident: object) -> HTTPException:
    return HTTPException(status_code=404, detail=f"{kind} {ident} not found")


def row_or_404(db: Database, sql: str, kind: str, ident: int) -> sqlite3.Row:
    """The one row ``sql`` selects for ``ident``, or the API's 404 naming what was missing."""
    row = db.one(sql, ident)
    if row is None:
        raise not_found(kind, ident)
    return row


SPEND_SQL = """SELECT COALESCE(SUM(CASE WHEN simulated = 0 THEN cost_cents END), 0) AS real,
  COALESCE(SUM(CASE WHEN simulated = 1 THEN cost_cents END), 0) AS simulated,
  COUNT(CASE WHEN refused IS NULL THEN 1 END) AS calls, COUNT(refused) AS refused FROM model_calls"""


def spend(db: Database, column: str | None = None, ident: int | None = None) -> Spend:
    """Metered model spend of the whole company, or of one run, task or agent (``column`` names which)."""
    assert column in (None, "run_id", "task_id", "agent_id")
    row = db.one(SPEND_SQL + (f" WHERE {column} = ?" if column else ""), *(() if column is None else (ident,)))
    assert row is not None
    return Spend(
        cents=round(row["real"], 4),
        simulated_cents=round(row["simulated"], 4),
        calls=row["calls"],
        refused_calls=row["refused"],
    )


def company(db: Database) -> Company:
    row = db.one("SELECT name, budget_cents, chat_connectors, hire_approval FROM company WHERE id = 1")
    assert row is not None
    metered = spend(db)
    recorded = db.one("SELECT COALESCE(SUM(cost_cents), 0) AS s FROM runs")
    real = max(math.ceil(metered.cents), recorded["s"] if recorded else 0)
    return Company(
        name=row["name"],
        budget_cents=row["budget_cents"],
        chat_connectors=bool(row["chat_connectors"]),
        hire_approval=bool(row["hire_approval"]),
        spend_cents=real,
        spend=metered,
    )


def _agent(row: sqlite3.Row, db: Database) -> Agent:
    fields = {key: row[key] for key in Agent.model_fields if key != "spend"}
    return Agent(**fields, spend=spend(db, "agent_id", row["id"]))


def agents(db: Database) -> list[Agent]:
    return [_agent(r, db) for r in db.all("SELECT * FROM agents ORDER BY id")]


def agent(db: Database, agent_id: int) -> Agent:
    return _agent(row_or_404(db, "SELECT * FROM agents WHERE id = ?", "agent", agent_id), db)


def _receipts(db: Database, run_id: int) -> list[Receipt]:
    rows = db.all("SELECT * FROM receipts WHERE run_id = ? ORDER BY rowid", run_id)  # as they arrived
    return [Receipt(**{**{k: r[k] for k in Receipt.model_fields}, "ok": bool(r["ok"])}) for r in rows]


def _run(db: Database, row: sqlite3.Row, with_receipts: bool) -> Run:
    gone = row["process_group_gone"]
    terminal = json.loads(row["terminal_json"]) if row["terminal_json"] else None
    return Run(
        id=row["id"],
        task_id=row["task_id"],
        agent_id=row["agent_id"],
        adapter=row["adapter"],
        model=row["model"],
        status=row["status"],
        identity=RunIdentity(
            runner_instance_id=row["runner_instance_id"],
            pid=row["pid"],
            process_start_time=row["process_start_time"],
            lease=lease_of(db.connection(), row["id"]),
        ),
        queued_at=row["queued_at"],
        started_at=row["started_at"],
        ended_at=row["ended_at"],
        cost_cents=row["cost_cents"],
        error_code=row["error_code"],
        terminal=terminal,
        process_group_gone=None if gone is None else bool(gone),
        cause=row["cause"],
        spend=spend(db, "run_id", row["id"]),
        agent_reported_cost_usd=(terminal or {}).get("agent_reported_cost_usd"),
        receipts=_receipts(db, row["id"]) if with_receipts else [],
    )


def run(db: Database, run_id: int) -> Run:
    return _run(db, row_or_404(db, "SELECT * FROM runs WHERE id = ?", "run", run_id), with_receipts=True)


def runs(db: Database, task_id: int | None = None) -> list[Run]:
    if task_id is None:
        rows = db.all("SELECT * FROM runs ORDER BY id")
    else:
        rows = db.all("SELECT * FROM runs WHERE task_id = ? ORDER BY id", task_id)
    return [_run(db, r, with_receipts=True) for r in rows]


def _comment(row: sqlite3.Row) -> Comment:
    values = {k: row[k] for k in Comment.model_fields if k != "author_name"}
    return Comment(**values, author_name=row["author_name"] or "You")


COMMENT_SQL = """
SELECT c.*, a.name AS author_name FROM comments c LEFT JOIN agents a ON a.id = c.agent_id
"""


def comments(db: Database, task_id: int) -> list[Comment]:
    return [_comment(r) for r in db.all(COMMENT_SQL + " WHERE c.task_id = ? ORDER BY c.id", task_id)]


def comments_by_ids(db: Database, ids: list[int]) -> list[Comment]:
    if not ids:
        return []
    marks = ",".join("?" for _ in ids)
    return [_comment(r) for r in db.all(COMMENT_SQL + f" WHERE c.id IN ({marks}) ORDER BY c.id", *ids)]


def _delivery(row: sqlite3.Row) -> Delivery:
    return Delivery(
        id=row["id"],
        task_id=row["task_id"],
        run_id=row["run_id"],
        sha256=row["sha256"],
        size=row["size"],
        files=json.loads(row["files_json"]),
        created_at=row["created_at"],
        download_url=f"/api/deliveries/{row['id']}/download",
    )


def delivery(db: Database, delivery_id: int) -> Delivery:
    return _delivery(row_or_404(db, "SELECT * FROM deliveries WHERE id = ?", "delivery", delivery_id))


def deliveries(db: Database, task_id: int) -> list[Delivery]:
    items = [_delivery(r) for r in db.all("SELECT * FROM deliveries WHERE task_id = ? ORDER BY id", task_id)]
    return failpoint("task.deliveries", items, db=db)


TASK_SQL = "SELECT t.*, a.name AS assignee_name FROM tasks t LEFT JOIN agents a ON a.id = t.assignee_id"


def _summary(row: sqlite3.Row) -> TaskSummary:
    return TaskSummary(**{k: row[k] for k in TaskSummary.model_fields})


def tasks(db: Database, parent_id: int | None = None) -> list[TaskSummary]:
    if parent_id is None:
        return [_summary(r) for r in db.all(TASK_SQL + " ORDER BY t.id DESC")]
    return [_summary(r) for r in db.all(TASK_SQL + " WHERE t.parent_id = ? ORDER BY t.id", parent_id)]


def task(db: Database, task_id: int) -> Task:
    row = row_or_404(db, TASK_SQL + " WHERE t.id = ?", "task", task_id)
    task_runs = failpoint("task.runs", runs(db, task_id), db=db, parent_id=row["parent_id"])
    active = [r.id for r in task_runs if r.status in ACTIVE_RUN_STATUSES]
    thread = comments(db, task_id)
    return Task(
        **_summary(row).model_dump(),
        body=row["body"],
        comments=thread,
        runs=task_runs,
        deliveries=deliveries(db, task_id),
        children=tasks(db, parent_id=task_id),
        active_run_id=failpoint("task.active-run", active[-1] if active else None, runs=task_runs),
        unconsumed_user_messages=failpoint(
            "task.unread-count",
            sum(1 for c in thread if c.author_kind == "user" and c.consumed_by_run_id is None),
            thread=thread,
        ),
        spend=spend(db, "task_id", task_id),
    )


def activity(db: Database, limit: int = 200) -> list[Activity]:
    rows = db.all("SELECT * FROM activity ORDER BY id DESC LIMIT ?", limit)
    return [Activity(**{k: r[k] for k in Activity.model_fields}) for r in rows]
