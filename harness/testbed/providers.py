"""The provider catalog and provider questions: how an agent reaches a service the product has no connector for.

The catalog is data: each outside provider the product knows is either
native (its own connection card, :mod:`intents`) or reachable only through
aggregators, offered in one fixed order. When an agent asks for a provider
of the second kind, the product does not pick a route itself: it asks the
person one question, listing the aggregators and then None, and saying
plainly that choosing one sends the task's data to that external service.

The question is an interaction like any other (persisted, saved once,
answered to a repeated ask with the saved choice), so it survives a
controller restart and a reload shows it as it was. Choosing an aggregator
binds the company's connection to that aggregator's gateway (installed
through the public API, its credential held by the product) to the asking
agent; choosing None changes nothing. Nothing reaches a gateway before the
person chose.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from fastapi import HTTPException

from .agent_ops import once
from .controller import Controller
from .db import now, record_activity
from .failpoints import failpoint
from .models import ConnectionRequestCreate, ProviderEntry, ServiceCallResult

AGGREGATORS = ("Composio", "Arcade", "Zapier")
NONE = "None"
ACTION = "choose_provider"
ANSWER = {"pending": "pending", "declined": "declined", "approved": "completed"}

CATALOG: tuple[ProviderEntry, ...] = (
    ProviderEntry(name="Jira", native=True, aggregators=list(AGGREGATORS)),
    ProviderEntry(name="HubSpot", native=False, aggregators=list(AGGREGATORS)),
)


def entry(provider: str) -> ProviderEntry | None:
    """The catalog's entry for ``provider`` (names compare case-insensitively); None for one it does not know."""
    return next((e for e in CATALOG if e.name.lower() == provider.lower()), None)


def disclosure(provider: str, aggregators: list[str]) -> str:
    """What the person reads before choosing: where the data goes if they pick an aggregator."""
    named = ", ".join(aggregators[:-1]) + f" or {aggregators[-1]}" if len(aggregators) > 1 else aggregators[0]
    return (
        f"{provider} has no built-in connector here. Choosing {named} sends the data this task needs from "
        f"{provider} to that external service, outside this product. Choose {NONE} to send nothing."
    )


# ---- the agent asks ------------------------------------------------------------------------------


def ask(
    controller: Controller, run: sqlite3.Row, payload: ConnectionRequestCreate, found: ProviderEntry
) -> ServiceCallResult:
    """One question per provider on a task: a repeated ask gets the saved answer (or the pending question)."""

    def open_question() -> dict[str, Any]:
        earlier = failpoint(
            "provider-question.earlier",
            conn.execute(
                "SELECT id, status FROM interactions WHERE kind = 'provider_question' AND task_id = ? AND agent_id = ? "
                "AND lower(provider) = lower(?) ORDER BY id DESC LIMIT 1",
                (run["task_id"], run["agent_id"], found.name),
            ).fetchone(),
        )
        if earlier is not None:
            return ServiceCallResult(status=ANSWER[earlier["status"]], interaction_id=earlier["id"]).model_dump()  # type: ignore[arg-type]
        options = failpoint("provider-question.options", [*found.aggregators, NONE])
        cursor = conn.execute(
            "INSERT INTO interactions (kind, task_id, run_id, agent_id, provider, action, arguments_json, status, "
            "outcome, options_json, disclosure, created_at) "
            "VALUES ('provider_question', ?, ?, ?, ?, ?, ?, 'pending', 'waiting', ?, ?, ?)",
            (
                run["task_id"],
                run["id"],
                run["agent_id"],
                found.name,
                ACTION,
                json.dumps({"reason": payload.reason} if payload.reason else {}),
                json.dumps(options),
                failpoint("provider-question.disclosure", disclosure(found.name, found.aggregators)),
                now(),
            ),
        )
        record_activity(
            conn,
            "interaction_pending",
            f"Run {run['id']} asks which provider should reach {found.name}",
            run["task_id"],
            run["id"],
            run["agent_id"],
        )
        return ServiceCallResult(status="pending", interaction_id=int(cursor.lastrowid or 0)).model_dump()

    with controller.db.transaction() as conn:
        answer = ServiceCallResult.model_validate(
            once(conn, run["id"], payload.event_id, "connection_request", open_question)
        )
    return failpoint("provider-question.answered", answer, controller=controller, provider=found)


# ---- the person chooses --------------------------------------------------------------------------


def check_choice(row: sqlite3.Row, decision: str, choice: str | None) -> None:
    """A provider question takes one of its own options, and the decision that option means (422 otherwise)."""
    options = json.loads(row["options_json"])
    if choice is None or choice not in options:
        raise HTTPException(status_code=422, detail=f"choice: one of {', '.join(options)} is required")
    if (choice == NONE) != (decision == "decline"):
        raise HTTPException(
            status_code=422, detail=f"decision: choosing {choice} means {'decline' if choice == NONE else 'approve'}"
        )


def route(conn: sqlite3.Connection, row: sqlite3.Row, choice: str) -> tuple[str, str]:
    """Inside the choosing transaction: bind the chosen aggregator's gateway connection to the asking agent.

    Returns the question's outcome and result: ``completed`` with the
    connection the agent now has, or ``failed`` when the company has not
    installed that aggregator.
    """
    found = gateway(conn, choice)
    if found is None:
        return "failed", f"{choice} is not installed in this company, so {row['provider']} cannot be reached through it"
    connection_id = failpoint("provider.route-connection", int(found["id"]), conn=conn, gateway=found)
    conn.execute(
        "INSERT OR IGNORE INTO connection_agents (connection_id, agent_id) VALUES (?, ?)",
        (connection_id, row["agent_id"]),
    )
    record_activity(
        conn,
        "provider_routed",
        f"{row['provider']} reached through {choice} (connection {connection_id}) for interaction {row['id']}",
        row["task_id"],
        row["run_id"],
        row["agent_id"],
    )
    return "completed", json.dumps(
        {"aggregator": choice, "service": found["service_name"], "connection_id": connection_id}
    )


def gateway(conn: sqlite3.Connection, service_name: str) -> sqlite3.Row | None:
    """The company's (first) connection to the installed service named like the aggregator, with its service."""
    return conn.execute(  # type: ignore[no-any-return]
        "SELECT c.*, s.name AS service_name, s.url, s.actions_json FROM connections c "
        "JOIN services s ON s.id = c.service_id WHERE lower(s.name) = lower(?) ORDER BY c.id LIMIT 1",
        (service_name,),
    ).fetchone()
