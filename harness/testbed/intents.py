"""Connection intents: an agent that needs a provider the company has not connected asks the person.

The request becomes a card in the task's thread (Connect / Not now). Not now
is saved like any decision; the same agent asking again for the same
provider on the same task gets that saved answer, and no new card: a person
says no once. Connect records the approval; the person then adds the
connection (``POST /api/services/{id}/connections``) and the agent finds it
among its connections. A provider with no native connector is asked about
differently: see :mod:`providers`.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from . import providers
from .agent_ops import once
from .controller import Controller
from .db import now, record_activity
from .failpoints import failpoint
from .models import ConnectionRequestCreate, ServiceCallResult

ANSWER = {"pending": "pending", "declined": "declined", "approved": "completed"}


def request_connection(controller: Controller, run: sqlite3.Row, payload: ConnectionRequestCreate) -> ServiceCallResult:
    """A card for the provider, or the answer the person already gave this agent on this task.

    A provider the catalog reaches only through aggregators gets a provider
    question instead (:mod:`providers`); a native one, or one the catalog
    does not know, gets the connection card.
    """
    found = providers.entry(payload.provider)
    if found is not None and not found.native:
        return providers.ask(controller, run, payload, found)

    def ask() -> dict[str, Any]:
        earlier = failpoint(
            "intent.earlier",
            conn.execute(
                "SELECT id, status FROM interactions WHERE kind = 'connection_intent' AND task_id = ? AND agent_id = ? "
                "AND lower(provider) = lower(?) ORDER BY id DESC LIMIT 1",
                (run["task_id"], run["agent_id"], payload.provider),
            ).fetchone(),
        )
        if earlier is not None:
            return ServiceCallResult(status=ANSWER[earlier["status"]], interaction_id=earlier["id"]).model_dump()  # type: ignore[arg-type]
        cursor = conn.execute(
            "INSERT INTO interactions (kind, task_id, run_id, agent_id, provider, action, arguments_json, status, "
            "outcome, created_at) VALUES ('connection_intent', ?, ?, ?, ?, 'connect', ?, 'pending', 'waiting', ?)",
            (run["task_id"], run["id"], run["agent_id"], payload.provider, _reason(payload.reason), now()),
        )
        record_activity(
            conn,
            "interaction_pending",
            f"Run {run['id']} asks to connect {payload.provider}",
            run["task_id"],
            run["id"],
            run["agent_id"],
        )
        return ServiceCallResult(status="pending", interaction_id=int(cursor.lastrowid or 0)).model_dump()

    with controller.db.transaction() as conn:
        return ServiceCallResult.model_validate(once(conn, run["id"], payload.event_id, "connection_request", ask))


def _reason(reason: str) -> str:
    return json.dumps({"reason": reason} if reason else {})
