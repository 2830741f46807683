"""Tool policy "Ask first": an agent's protected service action waits for a person's decision.

The agent names a connection bound to it and an action. A read-only action,
or any action on an ``allow`` connection, is forwarded at once. A protected
action on an ``ask_first`` connection is not forwarded: it becomes a pending
interaction in the task's thread, and only a person's Approve forwards it,
exactly once, with the server-held credential; Decline records the refusal
and the agent reads it. The decision is one conditional update (pending ->
decided), so a second click or a replayed request finds it decided and
changes nothing.
"""

from __future__ import annotations

import json
import sqlite3
from functools import partial
from typing import Any

from fastapi import HTTPException

from . import email_setup, providers
from .agent_ops import once
from .controller import Controller
from .db import Database, now, record_activity
from .failpoints import failpoint
from .models import Interaction, ServiceCallCreate, ServiceCallResult
from .records import not_found, row_or_404
from .service_client import ServiceError, call_action
from .services import open_credential

INTERACTION_SQL = """
SELECT i.*, a.name AS agent_name, c.name AS connection_name, c.service_id AS service_id, s.name AS service_name
FROM interactions i JOIN agents a ON a.id = i.agent_id LEFT JOIN connections c ON c.id = i.connection_id
LEFT JOIN services s ON s.id = c.service_id
"""


def _interaction(row: sqlite3.Row) -> Interaction:
    values = {k: row[k] for k in Interaction.model_fields if k not in ("arguments", "options")}
    return Interaction(**values, arguments=json.loads(row["arguments_json"]), options=json.loads(row["options_json"]))


def interaction(db: Database, interaction_id: int) -> Interaction:
    return _interaction(row_or_404(db, INTERACTION_SQL + " WHERE i.id = ?", "interaction", interaction_id))


def interactions(db: Database, task_id: int | None = None) -> list[Interaction]:
    if task_id is None:
        return [_interaction(r) for r in db.all(INTERACTION_SQL + " ORDER BY i.id")]
    return [_interaction(r) for r in db.all(INTERACTION_SQL + " WHERE i.task_id = ? ORDER BY i.id", task_id)]


# ---- the agent asks -------------------------------------------------------------------------


def _bound_connection(conn: sqlite3.Connection, run: sqlite3.Row, payload: ServiceCallCreate) -> sqlite3.Row:
    """The connection row, which must exist, be bound to the run's agent and offer the action."""
    row = conn.execute(
        "SELECT c.*, s.url, s.actions_json, s.name AS service_name FROM connections c "
        "JOIN services s ON s.id = c.service_id WHERE c.id = ?",
        (payload.connection_id,),
    ).fetchone()
    if row is None:
        raise HTTPException(status_code=400, detail=f"connection_id: no connection with id {payload.connection_id}")
    bound = conn.execute(
        "SELECT 1 FROM connection_agents WHERE connection_id = ? AND agent_id = ?", (row["id"], run["agent_id"])
    ).fetchone()
    if bound is None:
        raise HTTPException(status_code=403, detail=f"connection {row['id']} is not bound to agent {run['agent_id']}")
    if payload.action not in {a["name"] for a in json.loads(row["actions_json"])}:
        raise HTTPException(status_code=400, detail=f"action: {row['service_name']} has no action {payload.action!r}")
    return row  # type: ignore[no-any-return]


def _protected(row: sqlite3.Row, action: str) -> bool:
    read_only = {a["name"] for a in json.loads(row["actions_json"]) if a["read_only"]}
    return row["policy"] == "ask_first" and action not in read_only


def request_action(controller: Controller, run: sqlite3.Row, payload: ServiceCallCreate) -> ServiceCallResult:
    """Forward now (read-only or allowed) or open a pending interaction; a replayed event gets its first answer."""
    db = controller.db
    seen = db.one("SELECT response_json FROM events WHERE event_id = ? AND run_id = ?", payload.event_id, run["id"])
    if seen is not None:
        return ServiceCallResult.model_validate_json(seen["response_json"])
    connection = _bound_connection(db.connection(), run, payload)
    if not failpoint("action.asks-first", _protected(connection, payload.action)):
        ok, text = forward(controller, connection["id"], connection["url"], payload.action, payload.arguments)
        result = ServiceCallResult(status="completed" if ok else "failed", result=text)
        with db.transaction() as conn:
            once(conn, run["id"], payload.event_id, "service_call", lambda: result.model_dump())
            record_activity(
                conn,
                "service_call",
                f"Run {run['id']}: {payload.action} on {connection['service_name']}",
                run["task_id"],
                run["id"],
                run["agent_id"],
            )
        return result

    early: tuple[bool, str] | None = failpoint(
        "action.asked",
        None,
        forward=partial(forward, controller, connection["id"], connection["url"], payload.action, payload.arguments),
    )

    def open_interaction() -> dict[str, Any]:
        cursor = conn.execute(
            "INSERT INTO interactions (kind, task_id, run_id, agent_id, connection_id, action, arguments_json, status, "
            "outcome, result, created_at) VALUES ('service_action', ?, ?, ?, ?, ?, ?, 'pending', 'waiting', ?, ?)",
            (
                run["task_id"],
                run["id"],
                run["agent_id"],
                connection["id"],
                payload.action,
                json.dumps(payload.arguments, sort_keys=True),
                None if early is None else early[1],
                now(),
            ),
        )
        ident = int(cursor.lastrowid or 0)
        record_activity(
            conn,
            "interaction_pending",
            f"Run {run['id']} asks to {payload.action} on {connection['service_name']}",
            run["task_id"],
            run["id"],
            run["agent_id"],
        )
        return ServiceCallResult(status="pending", interaction_id=ident).model_dump()

    with db.transaction() as conn:
        answer = ServiceCallResult.model_validate(
            once(conn, run["id"], payload.event_id, "service_call", open_interaction)
        )
    return answer


def read_for_run(db: Database, run: sqlite3.Row, interaction_id: int) -> Interaction:
    """An agent reads its own task's interactions only."""
    found = interaction(db, interaction_id)
    if found.task_id != run["task_id"]:
        raise HTTPException(status_code=403, detail=f"run {run['id']} may not read interaction {interaction_id}")
    return found


# ---- the person decides -----------------------------------------------------------------------


def decide(
    controller: Controller,
    interaction_id: int,
    decision: str,
    via: str,
    api_key: str | None = None,
    choice: str | None = None,
) -> Interaction:
    """Save the decision once; Approve then forwards the call once. A repeat of the saved decision changes
    nothing and answers the saved record; the opposite decision (or another choice) is refused (409)."""
    status = "approved" if decision == "approve" else "declined"
    db = controller.db
    with db.transaction() as conn:
        row = conn.execute("SELECT * FROM interactions WHERE id = ?", (interaction_id,)).fetchone()
        if row is None:
            raise not_found("interaction", interaction_id)
        if row["kind"] == "email_setup" and decision == "approve" and row["status"] == "pending" and not api_key:
            raise HTTPException(status_code=422, detail="api_key: saving an email setup needs the AgentMail API key")
        if row["kind"] == "provider_question":
            providers.check_choice(row, decision, choice)
        else:
            choice = None
        if row["status"] not in ("pending", status):  # the opposite decision on a decided card: refused below
            row = failpoint("decision.overturn", row, conn=conn, status=status)
        if row["status"] != "pending":
            if row["status"] != status or row["choice"] != choice:
                raise HTTPException(
                    status_code=409,
                    detail=f"interaction {interaction_id} was already {row['status']}"
                    + (f" ({row['choice']})" if row["choice"] else "")
                    + f" at {row['decided_at']}",
                )
            won = False
            failpoint("decision.repeated", conn=conn, interaction_id=interaction_id, via=via)
        else:
            won = (
                conn.execute(
                    "UPDATE interactions SET status = ?, decided_by = ?, decided_via = ?, decided_at = ?, outcome = ?, "
                    "choice = ? WHERE id = ? AND status = 'pending'",
                    (
                        status,
                        failpoint("decision.decided-by", "user"),
                        via,
                        now(),
                        "waiting" if status == "approved" else "declined",
                        choice,
                        interaction_id,
                    ),
                ).rowcount
                == 1
            )
            won = failpoint(
                "decision.saved", won, conn=conn, interaction=row, status=status, seal=controller.credentials.seal
            )
            record_activity(
                conn,
                "interaction_decided",
                f"Interaction {interaction_id} {status} by the user ({via})",
                row["task_id"],
                row["run_id"],
                row["agent_id"],
            )
            if won and status == "approved" and row["kind"] == "email_setup" and api_key:
                email_setup.keep_key(conn, controller, row, api_key)
            if won and status == "approved" and row["kind"] == "provider_question" and choice:
                outcome, result = providers.route(conn, row, choice)
                conn.execute(
                    "UPDATE interactions SET outcome = ?, result = ? WHERE id = ?", (outcome, result, interaction_id)
                )
            # A run that ended while it waited is continued by a new run that reads the decision.
            if failpoint("decision.wakes-task", True):
                conn.execute(
                    "UPDATE tasks SET wake = 1, wake_cause = 'user_decision' WHERE id = ? AND NOT EXISTS "
                    "(SELECT 1 FROM runs WHERE id = ? AND status IN ('queued', 'running'))",
                    (row["task_id"], row["run_id"]),
                )
    if won and status == "approved" and row["kind"] == "service_action":
        if interaction(db, interaction_id).result is not None:  # its call has a result already: never forwarded twice
            with db.transaction() as conn:
                conn.execute("UPDATE interactions SET outcome = 'completed' WHERE id = ?", (interaction_id,))
        if interaction(db, interaction_id).outcome == "waiting":
            failpoint("decision.forward", _execute)(controller, interaction_id)
    failpoint(
        "decision.answered",
        saved=won,
        status=status,
        kind=row["kind"],
        forward=partial(_execute, controller, interaction_id),
    )
    return interaction(db, interaction_id)


def forward_approved_on_start(controller: Controller) -> None:
    """On start-up: forward the approved calls the last controller died before forwarding.

    Approve commits the decision first and forwards after, so a controller that
    dies in between leaves an approved call with no result, and the agent
    waiting on it for ever. Forwarding it now keeps the person's decision; only
    a controller that died during the call itself can make it twice, which is
    the smaller harm than a decision silently dropped.
    """
    unforwarded = controller.db.all(
        "SELECT id FROM interactions WHERE kind = 'service_action' AND status = 'approved' AND outcome = 'waiting' "
        "AND result IS NULL ORDER BY id"
    )
    for row in unforwarded:
        _execute(controller, row["id"])


def _execute(controller: Controller, interaction_id: int, keep_outcome: bool = False) -> None:
    """Forward the interaction's call once and keep its result (the defects call this at the wrong times too)."""
    found = interaction(controller.db, interaction_id)
    assert found.connection_id is not None and found.service_id is not None, "only a service action is forwarded"
    url = controller.db.one("SELECT url FROM services WHERE id = ?", found.service_id)["url"]  # type: ignore[index]
    ok, text = forward(controller, found.connection_id, url, found.action, found.arguments)
    with controller.db.transaction() as conn:
        if keep_outcome:
            conn.execute("UPDATE interactions SET result = ? WHERE id = ?", (text, interaction_id))
        else:
            conn.execute(
                "UPDATE interactions SET result = ?, outcome = CASE WHEN status = 'approved' THEN ? ELSE outcome END "
                "WHERE id = ?",
                (text, "completed" if ok else "failed", interaction_id),
            )
        record_activity(conn, "service_call", f"Interaction {interaction_id}: {found.action} forwarded", found.task_id)


def forward(
    controller: Controller, connection_id: int, url: str, action: str, arguments: dict[str, str]
) -> tuple[bool, str]:
    credential = failpoint("action.credential", open_credential(controller.db, controller.credentials, connection_id))
    try:
        return call_action(url, credential, action, arguments)
    except ServiceError as error:
        return False, str(error)
