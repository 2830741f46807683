"""Agent API: the only door a runner has into the controller.

A bearer token is valid for exactly one run: a missing or unknown token is
401, a token used on another run's path is 403. Every write carries a
client-generated ``event_id``; the first application is stored with its
response and any replay (a runner retrying after a controller restart) gets
that same response without applying anything twice.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import AsyncGenerator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Request
from starlette.datastructures import UploadFile as StarletteUploadFile
from starlette.formparsers import MultiPartException, MultiPartParser

from . import agent_ops, email_setup, intents, interactions, providers, services
from .agent_ops import ended, once
from .api import PathId, controller_of
from .controller import Controller, end_run_in, token_hash
from .deliveries import MAX_DELIVERY_BYTES
from .models import (
    Ack,
    AgentComment,
    AgentRunContext,
    AssignUpdate,
    ChildTaskCreate,
    Connection,
    ConnectionRequestCreate,
    Delivery,
    EmailSetupCreate,
    FinishRequest,
    InboxRequest,
    InboxResponse,
    Interaction,
    ModelCallReport,
    ProviderEntry,
    ReceiptCreate,
    ServiceCallCreate,
    ServiceCallResult,
    StatusUpdate,
    Task,
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


def active_run(run: RunRow) -> sqlite3.Row:
    """The authorized run, which must still be running: a finished run's token reads nothing."""
    if run["status"] != "running":
        raise ended(run)
    return run


ActiveRunRow = Annotated[sqlite3.Row, Depends(active_run)]


@router.get("/context")
def context(run: ActiveRunRow, request: Request) -> AgentRunContext:
    controller = controller_of(request)
    return agent_ops.context(controller.db, run, simulated=controller.model_upstream is not None)


@router.get("/tasks/{task_id}")
def read_task(task_id: PathId, run: ActiveRunRow, request: Request) -> Task:
    return agent_ops.read_task(controller_of(request).db, run, task_id)


@router.post("/inbox")
def inbox(payload: InboxRequest, run: RunRow, request: Request) -> InboxResponse:
    return InboxResponse(messages=agent_ops.consume_inbox(controller_of(request), run, payload.event_id))


@router.post("/comments", status_code=201)
def agent_comment(payload: AgentComment, run: RunRow, request: Request) -> Ack:
    return agent_ops.comment(controller_of(request).db, run, payload.event_id, payload.body)


@router.post("/receipts", status_code=201)
def receipt(payload: ReceiptCreate, run: RunRow, request: Request) -> Ack:
    return agent_ops.receipt(controller_of(request).db, run, payload)


@router.post("/model-calls", status_code=201)
def model_call(payload: ModelCallReport, run: RunRow, request: Request) -> Ack:
    """One metered model call, reported by the run's metering proxy (accepted while the run is running)."""
    return agent_ops.record_call(controller_of(request).db, run, payload)


@router.post("/status")
def set_status(payload: StatusUpdate, run: RunRow, request: Request) -> Ack:
    return agent_ops.set_status(controller_of(request).db, run, payload.event_id, payload.status)


@router.post("/children", status_code=201)
def create_child(payload: ChildTaskCreate, run: RunRow, request: Request) -> Ack:
    """Delegate: a child task of the run's task, assigned to a named agent."""
    return agent_ops.create_child(
        controller_of(request).db, run, payload.event_id, payload.title, payload.body, payload.assignee_name
    )


@router.post("/assign")
def assign(payload: AssignUpdate, run: RunRow, request: Request) -> Ack:
    """Hand the run's own task to another agent; the scheduler starts that agent on it."""
    return agent_ops.assign(controller_of(request).db, run, payload.event_id, payload.assignee_name)


@router.get("/connections")
def my_connections(run: ActiveRunRow, request: Request) -> list[Connection]:
    """The connections bound to the run's agent: names, services and policies, never a credential."""
    return services.connections(controller_of(request).db, agent_id=run["agent_id"])


@router.post("/service-calls")
def service_call(payload: ServiceCallCreate, run: ActiveRunRow, request: Request) -> ServiceCallResult:
    """Run a service action through a bound connection: done at once, or pending a person's decision."""
    return interactions.request_action(controller_of(request), run, payload)


@router.post("/connection-requests")
def connection_request(payload: ConnectionRequestCreate, run: ActiveRunRow, request: Request) -> ServiceCallResult:
    """Ask the person to connect a provider: a pending card, or the answer they already gave (declined)."""
    return intents.request_connection(controller_of(request), run, payload)


@router.get("/providers")
def provider_catalog(run: ActiveRunRow) -> list[ProviderEntry]:
    """The provider catalog: a provider without a native connector is reached only through an aggregator the
    user chooses (``connection-requests`` asks them)."""
    return list(providers.CATALOG)


@router.post("/email-setup-requests")
def email_setup_request(payload: EmailSetupCreate, run: ActiveRunRow, request: Request) -> ServiceCallResult:
    """Ask the person for an email address (chat connectors): a pending card, or the answer already given."""
    return email_setup.request_email(controller_of(request), run, payload)


@router.get("/interactions")
def task_interactions(run: ActiveRunRow, request: Request) -> list[Interaction]:
    """Every request on the run's task and its decision: a continuation run reads what was decided."""
    return interactions.interactions(controller_of(request).db, run["task_id"])


@router.get("/interactions/{interaction_id}")
def read_interaction(interaction_id: PathId, run: ActiveRunRow, request: Request) -> Interaction:
    """A decision on the run's own task, and the result of an approved call."""
    return interactions.read_for_run(controller_of(request).db, run, interaction_id)


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
        raise HTTPException(
            status_code=422, detail=f"multipart form expected with event_id and file: {error}"
        ) from error
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
    return agent_ops.deliver(controller, run, event_id, data)


@router.post("/finish")
def finish(payload: FinishRequest, run: RunRow, request: Request) -> Ack:
    """The runner's last word: the terminal record of its run."""

    def end() -> dict[str, Any]:
        terminal: dict[str, Any] = {"summary": payload.summary, "reported_by": "runner"}
        if payload.agent_reported_cost_usd is not None:
            terminal["agent_reported_cost_usd"] = payload.agent_reported_cost_usd
        end_run_in(conn, run["id"], payload.outcome, payload.error_code, terminal, payload.cost_cents)
        return {"id": run["id"]}

    with controller_of(request).db.transaction() as conn:
        ack = Ack(**once(conn, run["id"], payload.event_id, "finish", end))
    controller_of(request).work_waiting()  # a message that came during the run, a parent whose child is done
    return ack
