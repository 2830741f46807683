"""Chat connectors: an agent asks for an email address, and the person answers on a durable card.

Off unless the company enables chat connectors. The request is a card in the
task's thread addressed to the company's user for that agent: one password
field for an AgentMail API key, a direct link to where such a key is made,
no access selectors and no modal. Saving the key keeps it sealed as the
agent's AgentMail connection (the testbed never sends it anywhere); Decline
creates nothing, and the same agent asking again gets the saved answer.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from fastapi import HTTPException

from .agent_ops import once
from .controller import Controller
from .db import now, record_activity
from .intents import ANSWER
from .models import EmailSetupCreate, ServiceCallResult

PROVIDER = "AgentMail"
ACTION = "set_up_email"
# Where a person makes an AgentMail API key; the card links there directly.
KEY_PAGE = "https://console.agentmail.to/"  # AgentMail's documented page for API keys


def request_email(controller: Controller, run: sqlite3.Row, payload: EmailSetupCreate) -> ServiceCallResult:
    """A card for the user, or the answer they already gave this agent (no second card)."""

    def ask() -> dict[str, Any]:
        enabled = conn.execute("SELECT chat_connectors FROM company WHERE id = 1").fetchone()[0]
        if not enabled:
            raise HTTPException(status_code=409, detail="chat connectors are off for this company")
        earlier = conn.execute(
            "SELECT id, status FROM interactions WHERE kind = 'email_setup' AND agent_id = ? ORDER BY id DESC LIMIT 1",
            (run["agent_id"],),
        ).fetchone()
        if earlier is not None:
            return ServiceCallResult(status=ANSWER[earlier["status"]], interaction_id=earlier["id"]).model_dump()  # type: ignore[arg-type]
        cursor = conn.execute(
            "INSERT INTO interactions (kind, task_id, run_id, agent_id, provider, action, arguments_json, status, "
            "outcome, created_at) VALUES ('email_setup', ?, ?, ?, ?, ?, '{}', 'pending', 'waiting', ?)",
            (run["task_id"], run["id"], run["agent_id"], PROVIDER, ACTION, now()),
        )
        record_activity(
            conn, "interaction_pending", f"Run {run['id']} asks for an email address", run["task_id"], run["id"]
        )
        return ServiceCallResult(status="pending", interaction_id=int(cursor.lastrowid or 0)).model_dump()

    with controller.db.transaction() as conn:
        return ServiceCallResult.model_validate(once(conn, run["id"], payload.event_id, "email_setup", ask))


def keep_key(conn: sqlite3.Connection, controller: Controller, row: sqlite3.Row, api_key: str) -> None:
    """Inside the approving transaction: the key becomes the agent's sealed AgentMail connection."""
    stamp = now()
    service = conn.execute("SELECT id FROM services WHERE name = ?", (PROVIDER,)).fetchone()
    service_id = (
        service[0]
        if service
        else conn.execute("INSERT INTO services (name, url, created_at) VALUES (?, '', ?)", (PROVIDER, stamp)).lastrowid
    )
    made = conn.execute(
        "INSERT INTO connections (service_id, name, credential_sealed, policy, created_at) VALUES (?, ?, ?, 'ask_first', ?)",
        (service_id, f"{PROVIDER} email", controller.credentials.seal(api_key), stamp),
    )
    conn.execute(
        "INSERT INTO connection_agents (connection_id, agent_id) VALUES (?, ?)", (made.lastrowid, row["agent_id"])
    )
