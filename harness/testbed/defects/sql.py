"""What several defects write or read the way the product's own code would: through its database."""

from __future__ import annotations

import sqlite3

from ..db import now


def store_user_message(conn: sqlite3.Connection, task_id: int, body: str) -> None:
    conn.execute(
        "INSERT INTO comments (task_id, author_kind, body, created_at) VALUES (?, 'user', ?, ?)",
        (task_id, body, now()),
    )


def adopted_at(conn: sqlite3.Connection, run_id: int) -> str | None:
    """When a controller re-adopted the run after a restart (the activity feed says so); None if never."""
    row = conn.execute(
        "SELECT MIN(at) AS at FROM activity WHERE kind = 'run_adopted' AND run_id = ?", (run_id,)
    ).fetchone()
    return None if row is None else row["at"]  # type: ignore[no-any-return]


def connect(conn: sqlite3.Connection, provider: str, sealed: bytes) -> int:
    """A connection named after ``provider`` to a service of that name (added unless installed): the defects'
    own, never checked with the service."""
    stamp = now()
    cursor = conn.execute(
        "INSERT OR IGNORE INTO services (name, url, created_at) VALUES (?, 'http://127.0.0.1/unset', ?)",
        (provider, stamp),
    )
    service = (
        cursor.lastrowid
        if cursor.rowcount
        else conn.execute("SELECT id FROM services WHERE name = ?", (provider,)).fetchone()[0]
    )
    made = conn.execute(
        "INSERT INTO connections (service_id, name, credential_sealed, policy, created_at) VALUES (?, ?, ?, 'allow', ?)",
        (service, provider, sealed, stamp),
    )
    return int(made.lastrowid or 0)
