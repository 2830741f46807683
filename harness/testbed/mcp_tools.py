"""The product's MCP tool server: how a live agent CLI works on its task.

Served by the controller at ``/mcp/`` (streamable HTTP, loopback) with the
official ``mcp`` SDK. The bearer token is the run's own token, so a tool call
acts as exactly one run, with the same rights the runner's agent API gives
it; every tool calls the same :mod:`agent_ops` function that API uses.
Errors come back as tool errors with the product's words (an agent reads
them), never as transport failures.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
import uuid
from typing import Any, Literal

from fastapi import HTTPException
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import ValidationError

from harness.agents.workspace import DeliveryError, zip_workspace

from . import agent_ops, skills
from .controller import Controller
from .mcp_mount import bearer, run_of
from .models import Task
from .skills import SkillCreate

SERVER_NAME = "testbed"
WAIT_LIMIT_SECONDS = 300.0

INSTRUCTIONS = """\
Tools of the testbed work platform for the task you were assigned: read it and
the user's new messages, comment, deliver your work as a ZIP, delegate to a
teammate through a child task, set the task's status, add a skill to the company library;
use the company's connected services, and ask the user for what needs their decision."""


def event_id() -> str:
    return f"mcp-{uuid.uuid4().hex}"


def task_view(task: Task, new_messages: list[dict[str, Any]] | None = None) -> str:
    """The task as an agent reads it: words and facts, no internal bookkeeping."""
    view: dict[str, Any] = {
        "id": task.id,
        "title": task.title,
        "status": task.status,
        "body": task.body,
        "conversation": [
            {"from": c.author_name if c.author_kind == "agent" else "user", "text": c.body} for c in task.comments
        ],
        "deliveries": [{"id": d.id, "sha256": d.sha256, "files": d.files} for d in task.deliveries],
        "children": [
            {"id": c.id, "title": c.title, "status": c.status, "assignee": c.assignee_name} for c in task.children
        ],
        "active": task.active_run_id is not None,
        "unread_user_messages": task.unconsumed_user_messages,
    }
    if new_messages is not None:
        view["new_messages"] = new_messages
    return json.dumps(view, indent=1)


def create_server(controller: Controller) -> MCPServer:
    """The tool server for one controller; each call finds its run by the bearer token."""
    server: MCPServer = MCPServer(SERVER_NAME, instructions=INSTRUCTIONS)

    def run(ctx: Context) -> sqlite3.Row:
        row = run_of(controller, bearer(ctx.headers))
        if row is None:
            raise ToolError("unknown run token")
        if row["status"] != "running":
            raise ToolError(f"run {row['id']} is {row['status']}; it can no longer act")
        return row

    def product(call: Any) -> Any:
        try:
            return call()
        except HTTPException as error:
            raise ToolError(str(error.detail)) from None
        except DeliveryError as error:
            raise ToolError(str(error)) from None
        except ValidationError as error:
            raise ToolError("; ".join(f"{e['loc'][0]}: {e['msg']}" for e in error.errors())) from None

    @server.tool(structured_output=False)
    def read_task(ctx: Context, task_id: int | None = None) -> str:
        """Read your task (or one of its child tasks, by id): its request, conversation, deliveries and children.

        Reading your own task also hands you the user's new messages (under
        "new_messages"); each is handed to you once, so act on them.
        """
        row = run(ctx)
        if task_id is not None and task_id != row["task_id"]:
            return task_view(product(lambda: agent_ops.read_task(controller.db, row, task_id)))
        fresh = product(lambda: agent_ops.consume_inbox(controller, row, event_id()))
        if fresh:
            product(lambda: agent_ops.record_read(controller.db, row, "read_task", fresh))
        return task_view(
            agent_ops.read_task(controller.db, row, row["task_id"]), [{"id": m.id, "text": m.body} for m in fresh]
        )

    @server.tool(structured_output=False)
    def comment(ctx: Context, body: str) -> str:
        """Post a comment on your task, for the user to read."""
        row = run(ctx)
        ack = product(lambda: agent_ops.comment(controller.db, row, event_id(), body))
        return f"comment {ack.id} posted"

    @server.tool(structured_output=False)
    def deliver(ctx: Context, files: list[str] | None = None) -> str:
        """Deliver your work: a ZIP of every file in your working folder, or only of `files` (paths relative to it)."""
        row = run(ctx)
        try:
            with controller.run_workspace(row) as workspace:
                data = product(lambda: zip_workspace(workspace, files))
        except OSError as error:  # a sandbox the engine cannot read
            raise ToolError(str(error)) from None
        delivery = product(lambda: agent_ops.deliver(controller, row, event_id(), data))
        return f"delivery {delivery.id} stored: {len(delivery.files)} files, sha256 {delivery.sha256}"

    @server.tool(structured_output=False)
    def create_child_task(ctx: Context, title: str, body: str, assignee_name: str) -> str:
        """Delegate: create a child task of your task, assigned to the teammate named `assignee_name`."""
        row = run(ctx)
        ack = product(lambda: agent_ops.create_child(controller.db, row, event_id(), title, body, assignee_name))
        return f"child task {ack.id} created for {assignee_name}"

    @server.tool(structured_output=False)
    def set_status(ctx: Context, status: Literal["in_progress", "in_review", "blocked", "done"]) -> str:
        """Set your task's status: "done" when the work is delivered and nothing is left to do."""
        row = run(ctx)
        product(lambda: agent_ops.set_status(controller.db, row, event_id(), status))
        return (
            f"task {row['task_id']} will be {status} when your run ends"
            if status == "done"
            else f"task {row['task_id']} is {status}"
        )

    @server.tool(structured_output=False)
    def create_skill(ctx: Context, name: str, body: str) -> str:
        """Add a skill to the company library: a `name` (its heading) and a markdown `body`. Your task gets a
        card linking to it. Create each skill once."""
        row = run(ctx)
        payload = product(lambda: SkillCreate(event_id=event_id(), name=name, body=body))
        ack = product(lambda: skills.create_skill(controller.db, row, payload))
        return f"skill {ack.id} created"

    @server.tool(structured_output=False)
    def list_skills(ctx: Context) -> str:
        """The company skill library: each skill's id, slug, name and version."""
        run(ctx)
        return json.dumps(
            [s.model_dump(include={"id", "slug", "name", "version"}) for s in skills.library(controller.db)]
        )

    @server.tool(structured_output=False)
    def read_skill(ctx: Context, skill_id: int) -> str:
        """Read a skill's newest body to follow it; your task lists it as a skill it used."""
        row = run(ctx)
        found = product(lambda: skills.use_skill(controller.db, row, event_id(), skill_id))
        return f"# skill {found.id} ({found.slug}), version {found.version}\n\n{found.body}"

    @server.tool(structured_output=False)
    async def wait_for_task(ctx: Context, task_id: int | None = None, max_seconds: float = 240.0) -> str:
        """Wait until a child task (by id; by default every child task of yours) is done with nothing left
        running or unread, then read it, its deliveries included (or give up after max_seconds)."""
        row = run(ctx)
        deadline = time.monotonic() + min(max_seconds, WAIT_LIMIT_SECONDS)
        while True:
            if task_id is None:
                ids = [child.id for child in agent_ops.read_task(controller.db, row, row["task_id"]).children]
            else:
                ids = [task_id]
            children = [
                product(lambda child_id=child_id: agent_ops.read_task(controller.db, row, child_id)) for child_id in ids
            ]
            finished = all(
                child.status == "done"
                and child.active_run_id is None
                and child.unconsumed_user_messages == 0
                and child.deliveries
                for child in children
            )
            if (children and finished) or time.monotonic() > deadline:
                return "\n".join(task_view(child) for child in children) or "you have no child tasks"
            await asyncio.sleep(0.5)
            run(ctx)  # a run stopped meanwhile stops waiting

    decision_tools(server, run, product, controller)
    return server


def decision_tools(server: MCPServer, run: Any, product: Any, controller: Controller) -> None:
    """Service actions, connection requests and email setup: the same operations as the runner's agent API."""
    from . import email_setup, intents, interactions, providers, services
    from .models import ConnectionRequestCreate, EmailSetupCreate, ServiceCallCreate

    @server.tool(structured_output=False)
    def list_connections(ctx: Context) -> str:
        """The service connections you may use: their ids, services, policies and actions (never a credential)."""
        row = run(ctx)
        actions = {s.id: [a.model_dump() for a in s.actions] for s in services.services(controller.db)}
        found = services.connections(controller.db, agent_id=row["agent_id"])
        return json.dumps(
            [
                {"connection_id": c.id, "service": c.service_name, "name": c.name, "policy": c.policy}
                | {"actions": actions.get(c.service_id, [])}
                for c in found
            ],
            indent=1,
        )

    @server.tool(structured_output=False)
    def call_service_action(
        ctx: Context, connection_id: int, action: str, arguments: dict[str, str] | None = None
    ) -> str:
        """Run an action of a connected service. A protected action may first need the user's approval: then
        you get a request id; read_decision(request_id) tells you the decision and, once approved, the result."""
        row = run(ctx)
        payload = ServiceCallCreate(
            event_id=event_id(), connection_id=connection_id, action=action, arguments=arguments or {}
        )
        return product(lambda: interactions.request_action(controller, row, payload)).model_dump_json()

    @server.tool(structured_output=False)
    def list_providers(ctx: Context) -> str:
        """The outside providers the platform knows: which have a native connector, and which aggregators reach
        the others (the user chooses one, or None, when you request_connection for such a provider)."""
        run(ctx)
        return json.dumps([entry.model_dump() for entry in providers.CATALOG], indent=1)

    @server.tool(structured_output=False)
    def request_connection(ctx: Context, provider: str, reason: str = "") -> str:
        """Ask the user to connect a provider the company has not connected (for example Notion). For a provider
        with no native connector the user is asked which aggregator, if any, may reach it for you."""
        row = run(ctx)
        payload = ConnectionRequestCreate(event_id=event_id(), provider=provider, reason=reason)
        return product(lambda: intents.request_connection(controller, row, payload)).model_dump_json()

    @server.tool(structured_output=False)
    def request_email_setup(ctx: Context, reason: str = "") -> str:
        """Ask the user for an email address of your own (AgentMail), when the company allows chat connectors."""
        row = run(ctx)
        payload = EmailSetupCreate(event_id=event_id(), reason=reason)
        return product(lambda: email_setup.request_email(controller, row, payload)).model_dump_json()

    @server.tool(structured_output=False)
    def list_requests(ctx: Context) -> str:
        """The requests made on your task (by you or an earlier run of yours) and the user's answers so far."""
        row = run(ctx)
        found = interactions.interactions(controller.db, row["task_id"])
        fields = {"id", "kind", "provider", "service_name", "action", "status", "choice", "outcome", "result"}
        return json.dumps([i.model_dump(include=fields) for i in found], indent=1)

    @server.tool(structured_output=False)
    async def read_decision(ctx: Context, request_id: int, max_seconds: float = 120.0) -> str:
        """Wait (up to max_seconds) until the user decided on your request, then read the decision and any result."""
        deadline = time.monotonic() + min(max_seconds, WAIT_LIMIT_SECONDS)
        while True:
            row = run(ctx)
            found = product(lambda row=row: interactions.read_for_run(controller.db, row, request_id))
            settled = found.status == "declined" or (found.status == "approved" and found.outcome != "waiting")
            if settled or (found.status == "approved" and found.kind != "service_action"):
                break
            if time.monotonic() > deadline:
                break
            await asyncio.sleep(0.5)
        answer = {"request_id": found.id, "decision": found.status, "outcome": found.outcome, "result": found.result}
        return json.dumps(answer | ({"choice": found.choice} if found.kind == "provider_question" else {}))
