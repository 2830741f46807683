"""A sandboxed run's lease: which container runs it, since when, from which image, and whether it was released.

The lease is the run's runner identity in the container environment, as pid
and start time are locally. It is written when the container has started,
and released once the container is stopped, its workspace brought back and
the container removed. Its table is in the product's schema (``db.py``).
"""

from __future__ import annotations

import sqlite3

from ..db import Database, now
from ..models import RunLease


def record(db: Database, run_id: int, task_id: int, lease: RunLease) -> None:
    with db.transaction() as conn:
        conn.execute(
            "INSERT OR REPLACE INTO leases (run_id, task_id, sandbox_id, started_at, image_digest) VALUES (?,?,?,?,?)",
            (run_id, task_id, lease.sandbox_id, lease.started_at, lease.image_digest),
        )


def released(db: Database, run_id: int, gone: bool, workspace_returned: bool) -> None:
    with db.transaction() as conn:
        conn.execute(
            "UPDATE leases SET released_at = ?, sandbox_gone = ?, workspace_returned = ? "
            "WHERE run_id = ? AND released_at IS NULL",
            (now(), gone, workspace_returned, run_id),
        )


def lease_of(conn: sqlite3.Connection, run_id: int) -> RunLease | None:
    """The run's lease, or None for a run whose runner is a local process (or never started)."""
    row = conn.execute("SELECT * FROM leases WHERE run_id = ?", (run_id,)).fetchone()
    if row is None:
        return None
    return RunLease(
        sandbox="container",
        sandbox_id=row["sandbox_id"],
        started_at=row["started_at"],
        image_digest=row["image_digest"],
        active=row["released_at"] is None,
        released_at=row["released_at"],
        sandbox_gone=None if row["sandbox_gone"] is None else bool(row["sandbox_gone"]),
        workspace_returned=None if row["workspace_returned"] is None else bool(row["workspace_returned"]),
    )


def unreleased(db: Database) -> list[sqlite3.Row]:
    """Leases not yet released, with their run's status and end."""
    return db.all(
        "SELECT l.*, r.status AS run_status, r.ended_at AS run_ended_at FROM leases l JOIN runs r ON r.id = l.run_id "
        "WHERE l.released_at IS NULL ORDER BY l.run_id"
    )


def task_held(db: Database, task_id: int) -> bool:
    """The task's workspace is still in a sandbox whose lease is not released: its next run must wait."""
    return db.one("SELECT 1 FROM leases WHERE task_id = ? AND released_at IS NULL", task_id) is not None
