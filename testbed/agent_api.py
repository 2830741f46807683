"""Agent API: the only door a runner has into the controller.

A bearer token is valid for exactly one run: a missing or unknown token is
401, a token used on another run's path is 403. Every write carries a
client-generated ``event_id``; the first application is stored with its
response and any replay (a runner retrying after a controller restart) gets
that same response without applying anything twice.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import AsyncGenerator, Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Request
from starlette.datastructures import UploadFile as StarletteUploadFile
from starlette.formparsers import MultiPartException, MultiPartParser

from . import faults, records
from .defects import hooks as defects
from .api import PathId, controller_of, insert_task
from .controller import Controller, end_run_in, token_hash
from .db import now, record_activity
from .deliveries import MAX_DELIVERY_BYTES, DeliveryError, store
from .models import (
    Ack,
    AgentComment,
    AgentRunContext,
    AssignUpdate,
    ChildTaskCreate,
    Delivery,
    FinishRequest,
    InboxRequest,
    InboxResponse,
    ReceiptCreate,
    StatusUpdate,
    Task,
    TaskCreate,
)

router = APIRouter(prefix="/api/agent/runs/{run_id}", tags=["agent"])
EVENT_ID = re.compile(r"^[A-Za-z0-9_.:-]{8,80}$")
# The upload route parses its own body (see upload_delivery); this documents it in OpenAPI.
DELIVERY_FORM_SCHEMA: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["event_id", "file"],
                    "properties": {"event_id": {"type": "string"}, "file": {"type": "string", "format": "binary"}},
                }
            }
        },
    }
}


def authorized_run(run_id: PathId, request: Request) -> sqlite3.Row:
    """The run row this request's token belongs to, which must be the run in the path."""
    header = request.headers.get("authorization", "")
    if not header.lower().startswith("bearer "):
        raise HTTPException(status_code=401, detail="missing bearer token")
    db = controller_of(request).db
    run = db.one("SELECT * FROM runs WHERE token_hash = ?", token_hash(header[7:].strip()))
    if run is None:
        raise HTTPException(status_code=401, detail="unknown run token")
    if run["id"] != run_id:
        raise HTTPException(status_code=403, detail=f"this token belongs to run {run['id']}, not run {run_id}")
    return run


RunRow = Annotated[sqlite3.Row, Depends(authorized_run)]


def ended(run: sqlite3.Row) -> HTTPException:
    """The 409 every request of a run that is no longer running gets (the runner stops on it)."""
    return HTTPException(status_code=409, detail=f"run {run['id']} is {run['status']}; it can no longer act")


def active_run(run: RunRow) -> sqlite3.Row:
    """The authorized run, which must still be running: a finished run's token reads nothing."""
    if run["status"] != "running":
        raise ended(run)
    return run


ActiveRunRow = Annotated[sqlite3.Row, Depends(active_run)]


def once(
    conn: sqlite3.Connection, run_id: int, event_id: str, kind: str, apply: Callable[[], dict[str, Any]]
) -> dict[str, Any]:
    """Apply an agent event exactly once; replays return the stored response."""
    seen = conn.execute("SELECT run_id, kind, response_json FROM events WHERE event_id = ?", (event_id,)).fetchone()
    if seen is not None:
        if seen["run_id"] != run_id or seen["kind"] != kind:
            raise HTTPException(status_code=409, detail=f"event_id {event_id} was already used for another event")
        return json.loads(seen["response_json"])  # type: ignore[no-any-return]
    current = conn.execute("SELECT id, status FROM runs WHERE id = ?", (run_id,)).fetchone()
    if current["status"] != "running":
        raise ended(current)
    response = apply()
    conn.execute(
        "INSERT INTO events (event_id, run_id, kind, response_json, created_at) VALUES (?, ?, ?, ?, ?)",
        (event_id, run_id, kind, json.dumps(response), now()),
    )
    return response


def own_task(conn: sqlite3.Connection, run: sqlite3.Row, task_id: int) -> None:
    """A run may read its own task and that task's children (to wait on delegated work)."""
    row = conn.execute("SELECT parent_id FROM tasks WHERE id = ?", (task_id,)).fetchone()
    if row is None:
        raise records.not_found("task", task_id)
    if task_id != run["task_id"] and row["parent_id"] != run["task_id"]:
        raise HTTPException(status_code=403, detail=f"run {run['id']} may not read task {task_id}")


def agent_named(conn: sqlite3.Connection, name: str) -> sqlite3.Row:
    agent = conn.execute("SELECT * FROM agents WHERE name = ?", (name,)).fetchone()
    if agent is None:
        raise HTTPException(status_code=400, detail=f"assignee_name: no agent named {name!r}")
    return agent  # type: ignore[no-any-return]


@router.get("/context")
def context(run: ActiveRunRow, request: Request) -> AgentRunContext:
    db = controller_of(request).db
    return AgentRunContext(
        run_id=run["id"],
        task=records.task(db, run["task_id"]),
        agent=records.agent(db, run["agent_id"]),
        agents=records.agents(db),
    )


@router.get("/tasks/{task_id}")
def read_task(task_id: PathId, run: ActiveRunRow, request: Request) -> Task:
    db = controller_of(request).db
    own_task(db.connection(), run, task_id)
    return records.task(db, task_id)


@router.post("/inbox")
def inbox(payload: InboxRequest, run: RunRow, request: Request) -> InboxResponse:
    """Hand the run every unconsumed user message on its task and record that this run consumed them.

    A retry with the same ``event_id`` (the answer was lost) gets the same
    messages again from the stored event, so none is consumed unseen.
    """
    db = controller_of(request).db
    first_read: list[int] = []

    def consume() -> dict[str, Any]:
        conn.execute(
            "UPDATE comments SET consumed_by_run_id = ?, consumed_at = ?, consume_event_id = ? "
            "WHERE task_id = ? AND author_kind = 'user' AND consumed_by_run_id IS NULL",
            (run["id"], now(), payload.event_id, run["task_id"]),
        )
        ids = [r["id"] for r in conn.execute("SELECT id FROM comments WHERE consume_event_id = ?", (payload.event_id,))]
        if ids:
            record_activity(conn, "messages_consumed", f"Run {run['id']} read messages {ids}", run["task_id"], run["id"])
        first_read.extend(ids)
        return {"ids": ids}

    with db.transaction() as conn:
        ids = once(conn, run["id"], payload.event_id, "inbox", consume)["ids"]
    faults.after_inbox_commit(first_read)
    handed = defects.handed_to_agent(controller_of(request), run, ids)
    return InboxResponse(messages=records.comments_by_ids(db, handed))


@router.post("/comments", status_code=201)
def agent_comment(payload: AgentComment, run: RunRow, request: Request) -> Ack:
    def insert() -> dict[str, Any]:
        cursor = conn.execute(
            "INSERT INTO comments (task_id, author_kind, agent_id, run_id, body, created_at) VALUES (?, 'agent', ?, ?, ?, ?)",
            (run["task_id"], run["agent_id"], run["id"], payload.body, now()),
        )
        return {"id": cursor.lastrowid}

    with controller_of(request).db.transaction() as conn:
        return Ack(**once(conn, run["id"], payload.event_id, "comment", insert))


@router.post("/receipts", status_code=201)
def receipt(payload: ReceiptCreate, run: RunRow, request: Request) -> Ack:
    def insert() -> dict[str, Any]:
        if conn.execute("SELECT 1 FROM receipts WHERE run_id = ? AND seq = ?", (run["id"], payload.seq)).fetchone():
            raise HTTPException(status_code=409, detail=f"seq: receipt {payload.seq} already recorded with another id")
        conn.execute(
            "INSERT INTO receipts (id, run_id, seq, tool, target, ok, detail, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (payload.event_id, run["id"], payload.seq, payload.tool, payload.target, payload.ok, payload.detail, now()),
        )
        defects.after_receipt(conn, run)
        return {"id": payload.event_id}

    with controller_of(request).db.transaction() as conn:
        return Ack(**once(conn, run["id"], payload.event_id, "receipt", insert))


@router.post("/status")
def set_status(payload: StatusUpdate, run: RunRow, request: Request) -> Ack:
    def update() -> dict[str, Any]:
        conn.execute("UPDATE tasks SET status = ?, updated_at = ? WHERE id = ?", (payload.status, now(), run["task_id"]))
        record_activity(conn, "task_status", f"Task {run['task_id']} -> {payload.status}", run["task_id"], run["id"])
        return {"id": run["task_id"]}

    with controller_of(request).db.transaction() as conn:
        return Ack(**once(conn, run["id"], payload.event_id, "status", update))


@router.post("/children", status_code=201)
def create_child(payload: ChildTaskCreate, run: RunRow, request: Request) -> Ack:
    """Delegate: a child task of the run's task, assigned to a named agent."""

    def insert() -> dict[str, Any]:
        assignee = defects.child_assignee(conn, run, agent_named(conn, payload.assignee_name))
        child = TaskCreate(title=payload.title, body=payload.body, assignee_id=assignee["id"], parent_id=run["task_id"])
        return {"id": insert_task(conn, child, created_by_run_id=run["id"])}

    with controller_of(request).db.transaction() as conn:
        return Ack(**once(conn, run["id"], payload.event_id, "child", insert))


@router.post("/assign")
def assign(payload: AssignUpdate, run: RunRow, request: Request) -> Ack:
    """Hand the run's own task to another agent; the scheduler starts that agent on it."""

    def update() -> dict[str, Any]:
        assignee = agent_named(conn, payload.assignee_name)
        conn.execute(
            "UPDATE tasks SET assignee_id = ?, wake = 1, status = 'todo', updated_at = ? WHERE id = ?",
            (assignee["id"], now(), run["task_id"]),
        )
        record_activity(conn, "task_assigned", f"Task {run['task_id']} handed to {assignee['name']}", run["task_id"], run["id"])
        return {"id": run["task_id"]}

    with controller_of(request).db.transaction() as conn:
        return Ack(**once(conn, run["id"], payload.event_id, "assign", update))


# Room for the multipart envelope around the largest ZIP the store keeps.
MAX_UPLOAD_BYTES = MAX_DELIVERY_BYTES + 64 * 1024


async def bounded_body(request: Request, limit: int) -> bytes:
    """The request body, refused with 413 as soon as it (declared or streamed) exceeds ``limit``."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise HTTPException(status_code=413, detail=f"file: the upload is larger than {limit} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise HTTPException(status_code=413, detail=f"file: the upload is larger than {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


async def delivery_form(request: Request, data: bytes) -> tuple[str, bytes]:
    """``(event_id, file bytes)`` from an already bounded multipart body."""

    async def body() -> AsyncGenerator[bytes, None]:
        yield data

    if not request.headers.get("content-type", "").startswith("multipart/form-data"):
        raise HTTPException(status_code=422, detail="multipart/form-data expected with event_id and file")
    try:
        form = await MultiPartParser(request.headers, body(), max_files=1, max_fields=1).parse()
    except MultiPartException as error:
        raise HTTPException(status_code=422, detail=f"multipart form expected with event_id and file: {error}") from error
    event_id, upload = form.get("event_id"), form.get("file")
    if not isinstance(event_id, str) or not EVENT_ID.match(event_id):
        raise HTTPException(status_code=422, detail="event_id: 8-80 characters of A-Z a-z 0-9 _ . : -")
    if not isinstance(upload, StarletteUploadFile):
        raise HTTPException(status_code=422, detail="file: a ZIP file part is required")
    return event_id, await upload.read()


@router.post("/deliveries", status_code=201, openapi_extra=DELIVERY_FORM_SCHEMA)
async def upload_delivery(run: RunRow, request: Request) -> Delivery:
    """Store the uploaded workspace ZIP (content-addressed) as a new immutable delivery.

    The body is read here, not by the framework, so a run that can no longer
    act is refused before a byte of its upload is read or written anywhere,
    and an upload larger than a delivery may be is cut off while it streams.
    While the run is running, a replay of an applied upload gets its first answer.
    """
    controller: Controller = controller_of(request)
    if run["status"] != "running":
        raise ended(run)
    event_id, data = await delivery_form(request, await bounded_body(request, MAX_UPLOAD_BYTES))
    try:
        digest, names = store(controller.data_dir, data)
    except DeliveryError as error:
        raise HTTPException(status_code=400, detail=f"file: {error}") from error

    def insert() -> dict[str, Any]:
        cursor = conn.execute(
            "INSERT INTO deliveries (task_id, run_id, sha256, size, files_json, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            (run["task_id"], run["id"], digest, len(data), json.dumps(names), now()),
        )
        record_activity(conn, "delivery", f"Delivery {cursor.lastrowid} ({digest[:12]})", run["task_id"], run["id"])
        return {"id": cursor.lastrowid}

    with controller.db.transaction() as conn:
        delivery_id = once(conn, run["id"], event_id, "delivery", insert)["id"]
    return records.delivery(controller.db, delivery_id)


@router.post("/finish")
def finish(payload: FinishRequest, run: RunRow, request: Request) -> Ack:
    """The runner's last word: the terminal record of its run."""
    def end() -> dict[str, Any]:
        terminal = {"summary": payload.summary, "reported_by": "runner"}
        end_run_in(conn, run["id"], payload.outcome, payload.error_code, terminal, payload.cost_cents)
        return {"id": run["id"]}

    with controller_of(request).db.transaction() as conn:
        return Ack(**once(conn, run["id"], payload.event_id, "finish", end))
