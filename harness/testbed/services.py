"""Installed services and their connections: where the product keeps credentials its agents may use.

A connection's credential is stored sealed (:mod:`credentials`) and opened
only inside :func:`open_credential`, for the one call the controller is
about to make; no model carries it, so no API answer, page or agent context
can.
"""

from __future__ import annotations

import json
import sqlite3

from fastapi import HTTPException

from .credentials import CredentialBox
from .db import Database, now, record_activity
from .models import Connection, ConnectionCreate, Service, ServiceAction, ServiceCreate
from .records import not_found, row_or_404
from .service_client import ServiceError, list_actions

# ---- reads ------------------------------------------------------------------------------


def _service(row: sqlite3.Row) -> Service:
    return Service(
        id=row["id"],
        name=row["name"],
        url=row["url"],
        actions=[ServiceAction.model_validate(a) for a in json.loads(row["actions_json"])],
        created_at=row["created_at"],
    )


def services(db: Database) -> list[Service]:
    return [_service(r) for r in db.all("SELECT * FROM services ORDER BY id")]


def service(db: Database, service_id: int) -> Service:
    return _service(row_or_404(db, "SELECT * FROM services WHERE id = ?", "service", service_id))


CONNECTION_SQL = "SELECT c.*, s.name AS service_name FROM connections c JOIN services s ON s.id = c.service_id"


def _connection(db: Database, row: sqlite3.Row) -> Connection:
    bound = db.all("SELECT agent_id FROM connection_agents WHERE connection_id = ? ORDER BY agent_id", row["id"])
    return Connection(
        id=row["id"],
        service_id=row["service_id"],
        service_name=row["service_name"],
        name=row["name"],
        policy=row["policy"],
        agent_ids=[r["agent_id"] for r in bound],
        credential_held=bool(row["credential_sealed"]),
        created_at=row["created_at"],
    )


def connections(db: Database, agent_id: int | None = None) -> list[Connection]:
    """Every connection, or those bound to one agent."""
    if agent_id is None:
        rows = db.all(CONNECTION_SQL + " ORDER BY c.id")
    else:
        rows = db.all(
            CONNECTION_SQL + " JOIN connection_agents b ON b.connection_id = c.id WHERE b.agent_id = ? ORDER BY c.id",
            agent_id,
        )
    return [_connection(db, r) for r in rows]


def connection(db: Database, connection_id: int) -> Connection:
    return _connection(db, row_or_404(db, CONNECTION_SQL + " WHERE c.id = ?", "connection", connection_id))


def open_credential(db: Database, box: CredentialBox, connection_id: int) -> str:
    """The connection's credential in clear, for the one call the controller makes now; nowhere else."""
    row = db.one("SELECT credential_sealed FROM connections WHERE id = ?", connection_id)
    if row is None:
        raise not_found("connection", connection_id)
    return box.open(row["credential_sealed"])


# ---- writes -------------------------------------------------------------------------------


def install_service(db: Database, payload: ServiceCreate) -> Service:
    with db.transaction() as conn:
        if conn.execute("SELECT 1 FROM services WHERE name = ?", (payload.name,)).fetchone():
            raise HTTPException(status_code=409, detail=f"name: a service named {payload.name!r} is installed already")
        cursor = conn.execute(
            "INSERT INTO services (name, url, created_at) VALUES (?, ?, ?)", (payload.name, payload.url, now())
        )
        service_id = int(cursor.lastrowid or 0)
        record_activity(conn, "service_installed", f"Service {payload.name} installed")
    return service(db, service_id)


def add_connection(db: Database, box: CredentialBox, service_id: int, payload: ConnectionCreate) -> Connection:
    """Store a connection once the service accepted its credential (its actions are learnt then)."""
    installed = service(db, service_id)
    try:
        actions = list_actions(installed.url, payload.credential)
    except ServiceError as error:
        raise HTTPException(status_code=400, detail=f"credential: the service refused it ({error})") from None
    with db.transaction() as conn:
        for agent_id in payload.agent_ids:
            if conn.execute("SELECT 1 FROM agents WHERE id = ?", (agent_id,)).fetchone() is None:
                raise HTTPException(status_code=400, detail=f"agent_ids: no agent with id {agent_id}")
        conn.execute(
            "UPDATE services SET actions_json = ? WHERE id = ?",
            (json.dumps([a.model_dump() for a in actions]), service_id),
        )
        cursor = conn.execute(
            "INSERT INTO connections (service_id, name, credential_sealed, policy, created_at) VALUES (?, ?, ?, ?, ?)",
            (service_id, payload.name, box.seal(payload.credential), payload.policy, now()),
        )
        connection_id = int(cursor.lastrowid or 0)
        conn.executemany(
            "INSERT INTO connection_agents (connection_id, agent_id) VALUES (?, ?)",
            [(connection_id, agent_id) for agent_id in sorted(set(payload.agent_ids))],
        )
        record_activity(conn, "connection_added", f"Connection {payload.name} to {installed.name} ({payload.policy})")
    return connection(db, connection_id)
