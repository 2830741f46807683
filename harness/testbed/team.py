"""The team: hires that wait for the board's approval, and pausing, resuming and terminating an agent.

When the company requires approval for new agents, a hire is a request
(``hire_approvals``): nothing of the agent exists until a person approves it,
and a rejected request creates nothing. An agent is ``active`` (the scheduler
gives it runs), ``paused`` or ``terminated`` (it gets none; its tasks keep
their waiting work). Pausing stops the agent's run in progress as Stop does
(its process group killed, the run recorded cancelled, ``paused_by_user``):
the work waits, and a resumed agent takes it up again. Terminating stops it
for good: a terminated agent is never resumed.
"""

from __future__ import annotations

import sqlite3
from typing import Literal

from fastapi import HTTPException
from pydantic import BaseModel

from . import records
from .api import insert_agent
from .controller import PAUSED_BY_USER, SCRIPTED_ADAPTER, TERMINATED_BY_USER, Controller
from .db import Database, now, record_activity
from .failpoints import failpoint
from .models import Agent, AgentCreate, Strict

HireStatus = Literal["pending", "approved", "rejected"]
Control = Literal["pause", "resume", "terminate"]


class HireApproval(BaseModel):
    """A hire waiting for (or decided by) the board; ``agent_id`` is set once an approval created the agent."""

    id: int
    kind: Literal["hire"] = "hire"
    name: str
    role: str
    reports_to: int | None
    adapter: str
    model: str
    status: HireStatus
    agent_id: int | None
    decided_at: str | None
    created_at: str


class HireSetting(Strict):
    required: bool


class HireRequested(BaseModel):
    """What a hire request did: created the agent at once (no approval required), or made a request that waits."""

    agent: Agent | None
    approval: HireApproval | None


def approvals(db: Database) -> list[HireApproval]:
    return [HireApproval(**dict(row)) for row in db.all("SELECT * FROM hire_approvals ORDER BY id")]


def approval(db: Database, approval_id: int) -> HireApproval:
    row = records.row_or_404(db, "SELECT * FROM hire_approvals WHERE id = ?", "approval", approval_id)
    return HireApproval(**dict(row))


def require_approval(db: Database, required: bool) -> None:
    with db.transaction() as conn:
        conn.execute("UPDATE company SET hire_approval = ? WHERE id = 1", (int(required),))
        record_activity(conn, "hire_approval", f"New agents {'need' if required else 'no longer need'} approval")


def request_hire(controller: Controller, payload: AgentCreate) -> HireRequested:
    """Hire at once, or, where the company requires it, keep a request for the board (409 on a name in use)."""
    db = controller.db
    with db.transaction() as conn:
        required = bool(conn.execute("SELECT hire_approval FROM company WHERE id = 1").fetchone()["hire_approval"])
        if not failpoint("hire.approval-required", required):
            agent_id = insert_agent(conn, payload)
            hired = None
        else:
            hired = _keep_request(conn, payload)
    if hired is not None:
        return HireRequested(agent=None, approval=approval(db, hired))
    if payload.adapter != SCRIPTED_ADAPTER:
        controller.live_agent_present()
    return HireRequested(agent=records.agent(db, agent_id), approval=None)


def _keep_request(conn: sqlite3.Connection, payload: AgentCreate) -> int:
    """The request for the board: checked now as a hire would be, so approving it cannot fail on its input."""
    from harness.agents.adapters import adapter_names

    if payload.adapter not in adapter_names():
        raise HTTPException(status_code=400, detail=f"adapter: unknown adapter {payload.adapter!r}")
    taken = conn.execute(
        "SELECT 1 FROM agents WHERE name = ? UNION SELECT 1 FROM hire_approvals WHERE name = ? AND status = 'pending'",
        (payload.name, payload.name),
    ).fetchone()
    if taken:
        raise HTTPException(status_code=409, detail=f"name: {payload.name!r} is taken or waiting for approval")
    if (
        payload.reports_to is not None
        and not conn.execute("SELECT 1 FROM agents WHERE id = ?", (payload.reports_to,)).fetchone()
    ):
        raise HTTPException(status_code=400, detail=f"reports_to: no agent with id {payload.reports_to}")
    cursor = conn.execute(
        "INSERT INTO hire_approvals (name, role, reports_to, adapter, model, status, created_at)"
        " VALUES (?, ?, ?, ?, ?, 'pending', ?)",
        (payload.name, payload.role, payload.reports_to, payload.adapter, payload.model, now()),
    )
    record_activity(conn, "hire_requested", f"Hire of {payload.name} waits for approval")
    return int(cursor.lastrowid or 0)


def decide(controller: Controller, approval_id: int, approve: bool) -> HireApproval:
    """Approve (the agent is created, active) or reject (nothing is created) a pending hire; 409 once decided."""
    db = controller.db
    with db.transaction() as conn:
        row = conn.execute("SELECT * FROM hire_approvals WHERE id = ?", (approval_id,)).fetchone()
        if row is None:
            raise records.not_found("approval", approval_id)
        if row["status"] != "pending":
            raise HTTPException(status_code=409, detail=f"approval {approval_id} is already {row['status']}")
        agent_id = None
        if failpoint("hire-approval.creates-agent", approve, approval=row):
            fields = {key: row[key] for key in ("name", "role", "reports_to", "adapter", "model")}
            agent_id = insert_agent(conn, AgentCreate(**fields))
        status = "approved" if approve else "rejected"
        conn.execute(
            "UPDATE hire_approvals SET status = ?, agent_id = ?, decided_at = ? WHERE id = ?",
            (status, agent_id, now(), approval_id),
        )
        record_activity(conn, f"hire_{status}", f"Hire of {row['name']} {status}", agent_id=agent_id)
    if agent_id is not None and row["adapter"] != SCRIPTED_ADAPTER:
        controller.live_agent_present()
    return approval(db, approval_id)


# What each control allows from, and leaves the agent as.
CONTROLS: dict[Control, tuple[tuple[str, ...], str]] = {
    "pause": (("active", "paused"), "paused"),
    "resume": (("paused", "active"), "active"),
    "terminate": (("active", "paused", "terminated"), "terminated"),
}


def control(controller: Controller, agent_id: int, action: Control) -> Agent:
    """Pause, resume or terminate an agent (409 from a state that does not allow it: a terminated agent stays so).

    Pausing and terminating stop the agent's runs in progress before answering.
    """
    db = controller.db
    allowed, becomes = CONTROLS[action]
    with db.transaction() as conn:
        row = conn.execute("SELECT status, name FROM agents WHERE id = ?", (agent_id,)).fetchone()
        if row is None:
            raise records.not_found("agent", agent_id)
        if row["status"] not in allowed:
            raise HTTPException(status_code=409, detail=f"agent {agent_id} is {row['status']}: it cannot {action}")
        conn.execute("UPDATE agents SET status = ? WHERE id = ?", (becomes, agent_id))
        record_activity(conn, f"agent_{becomes}", f"Agent {row['name']} {becomes}", agent_id=agent_id)
    if action != "resume":
        active = db.all("SELECT id FROM runs WHERE agent_id = ? AND status IN ('queued', 'running')", agent_id)
        why = PAUSED_BY_USER if action == "pause" else TERMINATED_BY_USER
        for run_id in failpoint("agent.control.stops-runs", [r["id"] for r in active], action=action):
            controller.stop(run_id, why=why)
    return records.agent(db, agent_id)
