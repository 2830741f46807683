"""Public JSON API: what a person's tools (and the harness) read and do.

Every route reads through :mod:`records` and writes in one transaction.
References inside a payload that do not exist answer 400 (the payload is
wrong); unknown ids in the path answer 404.
"""

from __future__ import annotations

import hashlib
import os
import pathlib
import sqlite3
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Path, Query, Request
from fastapi.responses import Response

from . import budgets, records
from .controller import SCRIPTED_ADAPTER, Controller
from .db import now, record_activity
from .deliveries import blob_path
from .failpoints import failpoint
from .models import (
    SQLITE_INT_MAX,
    Activity,
    Agent,
    AgentCreate,
    BudgetUpdate,
    Comment,
    CommentCreate,
    Company,
    Delivery,
    Health,
    Run,
    ShutdownMode,
    StopResult,
    Task,
    TaskCreate,
    TaskSummary,
    WorkspaceFile,
)
from .origin import same_origin_if_browser

LISTING_TRIES = 5
"""Readings of a workspace that changes while it is listed, before the listing says it has nothing to show."""

# Every id in a path: a number SQLite can hold, else 422 naming it (never a 500).
PathId = Annotated[int, Path(ge=1, le=SQLITE_INT_MAX)]
router = APIRouter(prefix="/api", tags=["public"], dependencies=[Depends(same_origin_if_browser)])


def controller_of(request: Request) -> Controller:
    return request.app.state.controller  # type: ignore[no-any-return]


def require_row(conn: sqlite3.Connection, table: str, ident: int | None, field: str) -> None:
    if ident is not None and conn.execute(f"SELECT 1 FROM {table} WHERE id = ?", (ident,)).fetchone() is None:
        raise HTTPException(status_code=400, detail=f"{field}: no {table[:-1]} with id {ident}")


@router.get("/health")
def health(request: Request) -> Health:
    return Health(
        ok=True, instance_id=controller_of(request).instance_id, pid=os.getpid(), defects=request.app.state.defects
    )


@router.post("/controller/drain")
def request_drain(request: Request) -> ShutdownMode:
    """The operator's drain request: this controller's shutdown stops, records interrupted and queues again every
    running run instead of leaving its runner working (testbed/drain.py). The next controller starts without one."""
    controller = controller_of(request)
    controller.drain_requested = True
    return ShutdownMode(drain=True)


@router.get("/company")
def get_company(request: Request) -> Company:
    return records.company(controller_of(request).db)


@router.put("/company/budget")
def set_company_budget(payload: BudgetUpdate, request: Request) -> Company:
    """The company's hard spending limit: a model call that would pass it is refused."""
    if payload.budget_cents is None:
        raise HTTPException(status_code=422, detail="budget_cents: the company always has a budget")
    db = controller_of(request).db
    with db.transaction() as conn:
        conn.execute("UPDATE company SET budget_cents = ? WHERE id = 1", (payload.budget_cents,))
        record_activity(conn, "budget", f"Company budget set to {payload.budget_cents} cents")
    return records.company(db)


@router.put("/agents/{agent_id}/budget")
def set_agent_budget(agent_id: PathId, payload: BudgetUpdate, request: Request) -> Agent:
    """One agent's hard spending limit (null: only the company's applies); raised above its spend, it resumes an
    agent its budget paused."""
    return budgets.set_agent_budget(controller_of(request).db, agent_id, payload.budget_cents)


@router.get("/agents")
def list_agents(request: Request) -> list[Agent]:
    return records.agents(controller_of(request).db)


@router.post("/agents", status_code=201)
def create_agent(payload: AgentCreate, request: Request) -> Agent:
    """Create an agent at once; 409 while the company requires approval for new agents (``POST /api/hires``)."""
    controller = controller_of(request)
    with controller.db.transaction() as conn:
        if conn.execute("SELECT hire_approval FROM company WHERE id = 1").fetchone()["hire_approval"]:
            raise HTTPException(
                status_code=409, detail="new agents need the board's approval: request the hire (POST /api/hires)"
            )
        agent_id = insert_agent(conn, payload)
    if payload.adapter != SCRIPTED_ADAPTER:
        controller.live_agent_present()
    return records.agent(controller.db, agent_id)


def insert_agent(conn: sqlite3.Connection, payload: AgentCreate) -> int:
    """Insert an agent and bind its connections in the caller's transaction; 400 or 409 on bad input (nothing kept)."""
    from harness.agents.adapters import adapter_names

    if payload.adapter not in adapter_names():
        raise HTTPException(
            status_code=400, detail=f"adapter: unknown adapter {payload.adapter!r}; known: {adapter_names()}"
        )
    require_row(conn, "agents", payload.reports_to, "reports_to")
    if conn.execute("SELECT 1 FROM agents WHERE name = ?", (payload.name,)).fetchone():
        raise HTTPException(status_code=409, detail=f"name: an agent named {payload.name!r} already exists")
    cursor = conn.execute(
        "INSERT INTO agents (name, role, reports_to, adapter, model, budget_cents, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            payload.name,
            payload.role,
            failpoint("hire.reports-to", payload.reports_to),
            payload.adapter,
            payload.model,
            payload.budget_cents,
            now(),
        ),
    )
    agent_id = int(cursor.lastrowid or 0)
    bind_connections(conn, agent_id, payload.connection_ids)
    record_activity(conn, "agent_created", f"Agent {payload.name} created", agent_id=agent_id)
    return agent_id


def bind_connections(conn: sqlite3.Connection, agent_id: int, connection_ids: list[int]) -> None:
    """Let a new agent use these connections (each must exist: 400 otherwise, and nothing of the hire is kept)."""
    for connection_id in sorted(set(connection_ids)):
        require_row(conn, "connections", connection_id, "connection_ids")
        conn.execute("INSERT INTO connection_agents (connection_id, agent_id) VALUES (?, ?)", (connection_id, agent_id))


@router.get("/tasks")
def list_tasks(request: Request) -> list[TaskSummary]:
    return records.tasks(controller_of(request).db)


def insert_task(
    conn: sqlite3.Connection, payload: TaskCreate, created_by_run_id: int | None = None, wake: bool = True
) -> int:
    """Insert a task; an assigned task wakes the scheduler. Shared by users, delegating agents and routines.

    A terminated agent takes no work: a task for it is refused (409); a paused one's waits until it is resumed.
    """
    require_row(conn, "agents", payload.assignee_id, "assignee_id")
    assignee = conn.execute("SELECT name, status FROM agents WHERE id = ?", (payload.assignee_id,)).fetchone()
    if assignee is not None and not failpoint("task.assignee-takes-work", assignee["status"] != "terminated"):
        raise HTTPException(status_code=409, detail=f"assignee_id: {assignee['name']} is terminated")
    require_row(conn, "tasks", payload.parent_id, "parent_id")
    stamp = now()
    cursor = conn.execute(
        "INSERT INTO tasks (title, body, status, assignee_id, parent_id, created_by_run_id, wake, wake_cause, created_at, "
        "updated_at) VALUES (?, ?, 'todo', ?, ?, ?, ?, 'assignment', ?, ?)",
        (
            failpoint("task.title", payload.title),
            payload.body,
            payload.assignee_id,
            payload.parent_id,
            created_by_run_id,
            1 if payload.assignee_id is not None and wake else 0,
            stamp,
            stamp,
        ),
    )
    task_id = int(cursor.lastrowid or 0)
    record_activity(conn, "task_created", f"Task {task_id} created: {payload.title}", task_id, created_by_run_id)
    return task_id


@router.post("/tasks", status_code=201)
def create_task(payload: TaskCreate, request: Request) -> Task:
    controller = controller_of(request)
    with controller.db.transaction() as conn:
        task_id = insert_task(conn, payload)
    created = records.task(controller.db, task_id)  # as created: read before the scheduler may start it
    controller.work_waiting()
    return created


@router.get("/tasks/{task_id}", response_model=Task)
def get_task(task_id: PathId, request: Request) -> Task | Response:
    db = controller_of(request).db
    return failpoint("api.task-read", records.task)(db, task_id)


@router.post("/tasks/{task_id}/comments", status_code=201)
def post_comment(task_id: PathId, payload: CommentCreate, request: Request) -> Comment:
    """Store a user message at once; the agent reads it at its next turn or in the next run."""
    db = controller_of(request).db
    with db.transaction() as conn:
        task = conn.execute("SELECT status FROM tasks WHERE id = ?", (task_id,)).fetchone()
        if task is None:
            raise records.not_found("task", task_id)
        if task["status"] == "cancelled":
            raise HTTPException(status_code=409, detail=f"task {task_id} is cancelled")
        cursor = conn.execute(
            "INSERT INTO comments (task_id, author_kind, body, created_at) VALUES (?, 'user', ?, ?)",
            (task_id, failpoint("message.body", payload.body), now()),
        )
        comment_id = int(cursor.lastrowid or 0)
        failpoint("message.stored", conn=conn, task_id=task_id, body=payload.body)
        record_activity(conn, "user_message", f"User message {comment_id} on task {task_id}", task_id)
    stored = records.comments_by_ids(db, [comment_id])[0]  # as stored: read before a run may take it up
    controller_of(request).work_waiting()
    return stored


@router.get("/tasks/{task_id}/deliveries")
def task_deliveries(task_id: PathId, request: Request) -> list[Delivery]:
    db = controller_of(request).db
    records.task(db, task_id)
    return records.deliveries(db, task_id)


@router.get("/tasks/{task_id}/workspace")
def task_workspace(task_id: PathId, request: Request) -> list[WorkspaceFile]:
    """Every file in the task's workspace with its sha256, so a user can see what changed and when."""
    controller = controller_of(request)
    records.task(controller.db, task_id)
    root = controller.workspace(task_id)
    for _ in range(LISTING_TRIES):
        listed = _workspace_files(root)
        if listed is not None:
            return listed
    return []  # changing through every try: nothing to show at this moment


def _workspace_files(root: pathlib.Path) -> list[WorkspaceFile] | None:
    """The workspace's files as read now; None when one went while it was read (an agent removing a file, the
    workspace replaced by its sandbox's copy): a listing torn by a change is no answer."""
    try:
        files = sorted(p for p in root.rglob("*") if p.is_file()) if root.exists() else []
        return [
            WorkspaceFile(path=p.relative_to(root).as_posix(), size=len(data), sha256=hashlib.sha256(data).hexdigest())
            for p in files
            for data in (p.read_bytes(),)
        ]
    except FileNotFoundError:
        return None


@router.get("/runs")
def list_runs(request: Request, task_id: Annotated[int | None, Query(ge=1, le=SQLITE_INT_MAX)] = None) -> list[Run]:
    db = controller_of(request).db
    if task_id is not None:
        records.task(db, task_id)
    return records.runs(db, task_id)


@router.get("/runs/{run_id}")
def get_run(run_id: PathId, request: Request) -> Run:
    return records.run(controller_of(request).db, run_id)


@router.post("/runs/{run_id}/stop")
def stop_run(run_id: PathId, request: Request) -> StopResult:
    """Kill the runner's process group and record the run cancelled; 409 when it already ended."""
    controller = controller_of(request)
    run = records.run(controller.db, run_id)
    if run.status not in ("queued", "running"):
        raise HTTPException(status_code=409, detail=f"run {run_id} is {run.status}, not active")
    gone = controller.stop(run_id)
    return StopResult(run=records.run(controller.db, run_id), process_group_gone=gone)


@router.get("/deliveries/{delivery_id}")
def get_delivery(delivery_id: PathId, request: Request) -> Delivery:
    return records.delivery(controller_of(request).db, delivery_id)


@router.get("/deliveries/{delivery_id}/download")
def download_delivery(delivery_id: PathId, request: Request) -> Response:
    controller = controller_of(request)
    item = records.delivery(controller.db, delivery_id)
    filename = f"task-{item.task_id}-delivery-{item.id}.zip"
    data = failpoint(
        "download.bytes",
        blob_path(controller.data_dir, item.sha256).read_bytes(),
        db=controller.db,
        data_dir=controller.data_dir,
        delivery=item,
    )
    headers = {"X-Content-SHA256": item.sha256, "Content-Disposition": f'attachment; filename="{filename}"'}
    return Response(data, media_type="application/zip", headers=headers)


@router.get("/activity")
def get_activity(request: Request, limit: int = 200) -> list[Activity]:
    return records.activity(controller_of(request).db, max(1, min(limit, 1000)))
