"""SQLite schema and connection handling for the controller.

One file under the data folder holds every record. WAL mode lets the web
requests, the scheduler thread and a restarted controller read while another
writer commits; every write goes through :func:`transaction` so a request
either lands completely or not at all (nothing half-written on bad input).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS company (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    name TEXT NOT NULL,
    budget_cents INTEGER NOT NULL,
    chat_connectors INTEGER NOT NULL DEFAULT 0,
    hire_approval INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS agents (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    role TEXT NOT NULL,
    reports_to INTEGER REFERENCES agents(id),
    adapter TEXT NOT NULL,
    model TEXT NOT NULL,
    budget_cents INTEGER,
    status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active','paused','terminated')),
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tasks (
    id INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    body TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('todo','in_progress','in_review','blocked','done','cancelled')),
    assignee_id INTEGER REFERENCES agents(id),
    parent_id INTEGER REFERENCES tasks(id),
    created_by_run_id INTEGER,
    wake INTEGER NOT NULL DEFAULT 0,
    wake_cause TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS comments (
    id INTEGER PRIMARY KEY,
    task_id INTEGER NOT NULL REFERENCES tasks(id),
    author_kind TEXT NOT NULL CHECK (author_kind IN ('user','agent')),
    agent_id INTEGER REFERENCES agents(id),
    run_id INTEGER REFERENCES runs(id),
    body TEXT NOT NULL,
    created_at TEXT NOT NULL,
    consumed_by_run_id INTEGER REFERENCES runs(id),
    consumed_at TEXT,
    consume_event_id TEXT
);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    task_id INTEGER NOT NULL REFERENCES tasks(id),
    agent_id INTEGER NOT NULL REFERENCES agents(id),
    adapter TEXT NOT NULL,
    model TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('queued','running','succeeded','failed','cancelled')),
    token_hash TEXT UNIQUE,
    runner_instance_id TEXT,
    pid INTEGER,
    process_start_time REAL,
    log_path TEXT,
    queued_at TEXT NOT NULL,
    started_at TEXT,
    ended_at TEXT,
    cost_cents INTEGER NOT NULL DEFAULT 0,
    error_code TEXT,
    terminal_json TEXT,
    process_group_gone INTEGER,
    stop_requested_at TEXT,
    settle_status TEXT,
    cause TEXT
);
-- A sandboxed run's lease (testbed/sandbox/leases.py): its runner's identity in the container environment.
CREATE TABLE IF NOT EXISTS leases (
    run_id INTEGER PRIMARY KEY REFERENCES runs(id),
    task_id INTEGER NOT NULL REFERENCES tasks(id),
    sandbox_id TEXT NOT NULL,
    started_at TEXT NOT NULL,
    image_digest TEXT NOT NULL,
    released_at TEXT,
    sandbox_gone INTEGER,
    workspace_returned INTEGER
);
CREATE TABLE IF NOT EXISTS receipts (
    id TEXT PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    seq INTEGER NOT NULL,
    tool TEXT NOT NULL,
    target TEXT NOT NULL,
    ok INTEGER NOT NULL,
    detail TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (run_id, seq)
);
CREATE TABLE IF NOT EXISTS deliveries (
    id INTEGER PRIMARY KEY,
    task_id INTEGER NOT NULL REFERENCES tasks(id),
    run_id INTEGER NOT NULL REFERENCES runs(id),
    sha256 TEXT NOT NULL,
    size INTEGER NOT NULL,
    files_json TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    event_id TEXT PRIMARY KEY,
    run_id INTEGER NOT NULL,
    kind TEXT NOT NULL,
    response_json TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS model_calls (
    id INTEGER PRIMARY KEY,
    event_id TEXT NOT NULL UNIQUE,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    task_id INTEGER NOT NULL REFERENCES tasks(id),
    agent_id INTEGER NOT NULL REFERENCES agents(id),
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    protocol TEXT NOT NULL,
    status INTEGER NOT NULL,
    input_tokens INTEGER NOT NULL,
    cached_input_tokens INTEGER NOT NULL,
    cache_write_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cost_cents REAL NOT NULL,
    simulated INTEGER NOT NULL,
    refused TEXT,
    price_table TEXT NOT NULL,
    created_at TEXT NOT NULL,
    in_flight INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS activity (
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    kind TEXT NOT NULL,
    task_id INTEGER,
    run_id INTEGER,
    agent_id INTEGER,
    message TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS services (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    url TEXT NOT NULL,
    actions_json TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS connections (
    id INTEGER PRIMARY KEY,
    service_id INTEGER NOT NULL REFERENCES services(id),
    name TEXT NOT NULL,
    credential_sealed BLOB NOT NULL,
    policy TEXT NOT NULL CHECK (policy IN ('allow','ask_first')),
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS connection_agents (
    connection_id INTEGER NOT NULL REFERENCES connections(id),
    agent_id INTEGER NOT NULL REFERENCES agents(id),
    PRIMARY KEY (connection_id, agent_id)
);
CREATE TABLE IF NOT EXISTS interactions (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('service_action','connection_intent','email_setup','provider_question')),
    task_id INTEGER NOT NULL REFERENCES tasks(id),
    run_id INTEGER NOT NULL REFERENCES runs(id),
    agent_id INTEGER NOT NULL REFERENCES agents(id),
    addressed_to TEXT NOT NULL DEFAULT 'user',
    connection_id INTEGER REFERENCES connections(id),
    provider TEXT,
    action TEXT NOT NULL,
    arguments_json TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending','approved','declined')),
    decided_by TEXT,
    decided_via TEXT,
    decided_at TEXT,
    outcome TEXT NOT NULL CHECK (outcome IN ('waiting','completed','failed','declined')),
    result TEXT,
    options_json TEXT NOT NULL DEFAULT '[]',
    disclosure TEXT,
    choice TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS interactions_task ON interactions(task_id);
CREATE INDEX IF NOT EXISTS comments_task ON comments(task_id);
CREATE INDEX IF NOT EXISTS runs_task ON runs(task_id);
CREATE INDEX IF NOT EXISTS receipts_run ON receipts(run_id, seq);
CREATE INDEX IF NOT EXISTS model_calls_run ON model_calls(run_id);
"""

# The company skill library (testbed/skills.py): a skill keeps its id and slug for life; each save is a new version;
# a card on a task's thread records a skill an agent created there; task_skills lists what a task created or used.
SCHEMA += """
CREATE TABLE IF NOT EXISTS skills (
    id INTEGER PRIMARY KEY,
    slug TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    archived INTEGER NOT NULL DEFAULT 0,
    created_by_run_id INTEGER REFERENCES runs(id),
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS skill_versions (
    id INTEGER PRIMARY KEY,
    skill_id INTEGER NOT NULL REFERENCES skills(id),
    version INTEGER NOT NULL,
    body TEXT NOT NULL,
    author_kind TEXT NOT NULL CHECK (author_kind IN ('user','agent')),
    created_at TEXT NOT NULL,
    UNIQUE (skill_id, version)
);
CREATE TABLE IF NOT EXISTS skill_cards (
    id INTEGER PRIMARY KEY,
    task_id INTEGER NOT NULL REFERENCES tasks(id),
    skill_id INTEGER NOT NULL REFERENCES skills(id),
    run_id INTEGER REFERENCES runs(id),
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS task_skills (
    task_id INTEGER NOT NULL REFERENCES tasks(id),
    skill_id INTEGER NOT NULL REFERENCES skills(id),
    relation TEXT NOT NULL CHECK (relation IN ('created','used')),
    PRIMARY KEY (task_id, skill_id)
);
"""

# Hires waiting for the board (testbed/team.py): the agent is created only when one is approved.
SCHEMA += """
CREATE TABLE IF NOT EXISTS hire_approvals (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    role TEXT NOT NULL,
    reports_to INTEGER REFERENCES agents(id),
    adapter TEXT NOT NULL,
    model TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending','approved','rejected')),
    agent_id INTEGER REFERENCES agents(id),
    decided_at TEXT,
    created_at TEXT NOT NULL
);
"""

# Routines (testbed/routines.py): a webhook delivery fires a routine once per idempotency key (UNIQUE below).
SCHEMA += """
CREATE TABLE IF NOT EXISTS routines (
    id INTEGER PRIMARY KEY,
    title TEXT NOT NULL,
    body TEXT NOT NULL,
    assignee_id INTEGER NOT NULL REFERENCES agents(id),
    webhook_key TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS routine_fires (
    id INTEGER PRIMARY KEY,
    routine_id INTEGER NOT NULL REFERENCES routines(id),
    source TEXT NOT NULL CHECK (source IN ('webhook')),
    idempotency_key TEXT NOT NULL,
    task_id INTEGER NOT NULL REFERENCES tasks(id),
    created_at TEXT NOT NULL,
    UNIQUE (routine_id, source, idempotency_key)
);
"""

ACTIVE_RUN_STATUSES = ("queued", "running")


def now() -> str:
    """UTC timestamp with microseconds; ISO strings sort in time order."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


def _nothing() -> None:
    """No one to tell of a commit."""


@contextmanager
def _writable(conn: sqlite3.Connection) -> Iterator[None]:
    """The connection may write until the block ends, however it ends."""
    conn.execute("PRAGMA query_only=OFF")
    try:
        yield
    finally:
        conn.execute("PRAGMA query_only=ON")


class Database:
    """Opens one connection per thread on the controller's SQLite file.

    ``on_commit`` is called after each :meth:`transaction` commits (the controller tells its live pages to look).
    Every write goes through :meth:`transaction`: outside one, a connection refuses to write (SQLite's
    ``query_only``), so no change this process makes goes unannounced.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.on_commit: Callable[[], None] = _nothing
        self._local = threading.local()
        conn = self.connection()
        with _writable(conn):
            conn.execute("PRAGMA journal_mode=WAL")
            conn.executescript(f"BEGIN IMMEDIATE; {SCHEMA} COMMIT;")  # one commit, not one (and one fsync) per table
            _add_missing_columns(conn)
            if conn.execute("SELECT COUNT(*) FROM company").fetchone()[0] == 0:
                conn.execute(
                    "INSERT INTO company (id, name, budget_cents, created_at) VALUES (1, ?, ?, ?)",
                    ("Testbed Company", 10_000, now()),
                )

    def connection(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("PRAGMA busy_timeout=30000")
            # In WAL mode a commit then waits for no fsync (a checkpoint does): a killed controller loses nothing
            # committed, only a power cut could lose the last commits. Every request that writes waited for one.
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA query_only=ON")  # writable only inside transaction()
            self._local.conn = conn
        return conn

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT, rolled back on any exception."""
        conn = self.connection()
        with _writable(conn):
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        self.on_commit()

    def one(self, sql: str, *params: object) -> sqlite3.Row | None:
        return self.connection().execute(sql, params).fetchone()

    def all(self, sql: str, *params: object) -> list[sqlite3.Row]:
        return self.connection().execute(sql, params).fetchall()


# Columns added after a table first shipped: a data folder made by an older controller gains them at start.
ADDED_COLUMNS = {
    "company": {"chat_connectors": "INTEGER NOT NULL DEFAULT 0", "hire_approval": "INTEGER NOT NULL DEFAULT 0"},
    "agents": {"status": "TEXT NOT NULL DEFAULT 'active'", "paused_reason": "TEXT", "paused_at": "TEXT"},
    "interactions": {"options_json": "TEXT NOT NULL DEFAULT '[]'", "disclosure": "TEXT", "choice": "TEXT"},
    "model_calls": {"in_flight": "INTEGER NOT NULL DEFAULT 0"},
    "tasks": {"wake_cause": "TEXT"},
    "runs": {"cause": "TEXT", "stop_cause": "TEXT"},
}


def _add_missing_columns(conn: sqlite3.Connection) -> None:
    _widen_interaction_kinds(conn)
    for table, columns in ADDED_COLUMNS.items():
        present = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
        for name, declaration in columns.items():
            if name not in present:
                conn.execute(f"ALTER TABLE {table} ADD COLUMN {name} {declaration}")


def _widen_interaction_kinds(conn: sqlite3.Connection) -> None:
    """An older data folder's interactions table refuses provider questions (its CHECK lists fewer kinds):
    rebuild it under the current schema, every row kept (SQLite cannot alter a CHECK in place)."""
    row = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'interactions'").fetchone()
    if row is None or "provider_question" in row[0]:
        return
    present = [r[1] for r in conn.execute("PRAGMA table_info(interactions)")]
    create = SCHEMA[SCHEMA.index("CREATE TABLE IF NOT EXISTS interactions") :]
    create = create[: create.index(");") + 2].replace("IF NOT EXISTS interactions", "interactions")
    conn.execute("PRAGMA foreign_keys=OFF")
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("ALTER TABLE interactions RENAME TO interactions_before_providers")
    conn.execute(create)
    columns = ", ".join(present)
    conn.execute(f"INSERT INTO interactions ({columns}) SELECT {columns} FROM interactions_before_providers")
    conn.execute("DROP TABLE interactions_before_providers")
    conn.execute("CREATE INDEX IF NOT EXISTS interactions_task ON interactions(task_id)")
    conn.execute("COMMIT")
    conn.execute("PRAGMA foreign_keys=ON")


def record_activity(
    conn: sqlite3.Connection,
    kind: str,
    message: str,
    task_id: int | None = None,
    run_id: int | None = None,
    agent_id: int | None = None,
) -> None:
    """Append one line to the activity feed inside the caller's transaction."""
    conn.execute(
        "INSERT INTO activity (at, kind, task_id, run_id, agent_id, message) VALUES (?, ?, ?, ?, ?, ?)",
        (now(), kind, task_id, run_id, agent_id, message),
    )
