"""The hooks the product calls at one well-named point each; with no defect on, each is a no-op.

Every hook takes what the normal path computed and returns it unchanged
unless a defect that hooks in there is switched on (see the registry in
:mod:`testbed.defects`). Hooks only read and write through the same database
and store the product uses, so a defect looks to a user exactly like a bug
in the product would.
"""

from __future__ import annotations

import io
import logging
import sqlite3
import uuid
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..db import Database, now
from ..deliveries import blob_path
from ..models import Comment, Delivery, Run, Task
from . import active

if TYPE_CHECKING:
    from ..controller import Controller
    from ..skills import SkillCard

log = logging.getLogger("testbed.defects")


# ---- downloads and delivery bytes ------------------------------------------------


def served_bytes(db: Database, data_dir: Path, item: Delivery) -> bytes | None:
    """Bytes to serve instead of the stored blob of ``item``; None serves the blob as stored."""
    if active("download-other-bytes"):
        return _repacked(blob_path(data_dir, item.sha256).read_bytes())
    if active("redownload-serves-newest"):
        newest = db.one("SELECT sha256 FROM deliveries WHERE task_id = ? ORDER BY id DESC LIMIT 1", item.task_id)
        if newest is not None and newest["sha256"] != item.sha256:
            return blob_path(data_dir, newest["sha256"]).read_bytes()
    if active("download-partial-while-running"):
        running = db.one("SELECT 1 FROM runs WHERE task_id = ? AND status IN ('queued', 'running')", item.task_id)
        if running is not None:
            data = blob_path(data_dir, item.sha256).read_bytes()
            return data[: len(data) // 2]
    return None


def _repacked(data: bytes) -> bytes:
    """The same members, stored uncompressed: a ZIP that unpacks the same but hashes differently."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as target:
        for info in source.infolist():
            target.writestr(info.filename, source.read(info), compress_type=zipfile.ZIP_STORED)
    return out.getvalue()


# ---- messages ------------------------------------------------------------------------


def after_user_message(conn: sqlite3.Connection, task_id: int, body: str) -> None:
    """Called right after a user message is stored, inside the same transaction."""
    if active("message-stored-twice"):
        conn.execute(
            "INSERT INTO comments (task_id, author_kind, body, created_at) VALUES (?, 'user', ?, ?)",
            (task_id, body, now()),
        )


def handed_to_agent(controller: Controller, run: sqlite3.Row, ids: list[int]) -> list[int]:
    """The message ids the inbox answer hands the runner, of the ``ids`` it just recorded as consumed by it."""
    if active("message-lost"):
        return []
    if active("restart-inbox-lost") and run["pid"] is not None and not controller.supervisor.spawned(run["pid"]):
        return []  # a runner this controller re-adopted after a restart
    return ids


def unread_count(thread: list[Comment], counted: int) -> int:
    """The task's unread counter, from its thread and the count the normal path made."""
    users = [c for c in thread if c.author_kind == "user"]
    if active("read-still-unread"):
        return len(users)
    if active("unread-off-by-one") and any(c.consumed_by_run_id is not None for c in users):
        return counted + 1
    return counted


# ---- runs and runner identity --------------------------------------------------------


def active_run_pointer(runs: list[Run], pointer: int | None) -> int | None:
    """The run a task names as active, from its runs (oldest first) and the pointer the normal path chose."""
    if active("stale-active-run-pointer") and pointer is not None:
        return runs[0].id
    return pointer


def after_receipt(conn: sqlite3.Connection, run: sqlite3.Row) -> None:
    """Called after a run's receipt is stored, inside the same transaction."""
    if active("runner-identity-changes"):
        conn.execute("UPDATE runs SET runner_instance_id = ? WHERE id = ?", (uuid.uuid4().hex, run["id"]))


# ---- task status during runs ------------------------------------------------------------


def started_status(status: str) -> str:
    """The status a task takes when a run on it starts (``in_progress``)."""
    return "done" if active("done-while-running") else status


# ---- Stop ----------------------------------------------------------------------------------


def stop_signals_runner() -> bool:
    """Whether Stop signals the runner's process group (it always should)."""
    return not active("stop-without-signal")


# ---- restart and re-adoption -----------------------------------------------------------------


def recovering(controller: Controller, row: sqlite3.Row) -> bool:
    """Called at start-up for each run left running; True when the defect took the run over."""
    if active("restart-drops-message"):
        with controller.db.transaction() as conn:
            newest = conn.execute(
                "SELECT id FROM comments WHERE task_id = ? AND author_kind = 'user' ORDER BY id DESC LIMIT 1",
                (row["task_id"],),
            ).fetchone()
            if newest is not None:
                conn.execute("DELETE FROM comments WHERE id = ?", (newest["id"],))
                log.warning("defect restart-drops-message: dropped message %s of task %s", newest["id"], row["task_id"])
    if active("restart-second-run"):
        log.warning("defect restart-second-run: run %s not re-adopted; starting another", row["id"])
        controller.end_run(row["id"], "failed", error_code="process_lost", terminal={"at": "restart"})
        with controller.db.transaction() as conn:
            conn.execute("UPDATE tasks SET wake = 1 WHERE id = ?", (row["task_id"],))
        return True
    return False


# ---- delegation and assignment -----------------------------------------------------------------


def child_assignee(conn: sqlite3.Connection, run: sqlite3.Row, named: sqlite3.Row) -> sqlite3.Row:
    """The agent a delegated child task is assigned to, given the agent the delegating run named."""
    if active("child-assigned-to-lead"):
        return conn.execute("SELECT * FROM agents WHERE id = ?", (run["agent_id"],)).fetchone()  # type: ignore[no-any-return]
    return named


# ---- what the UI renders ------------------------------------------------------------------------


def as_shown(task: Task) -> Task:
    """The task as the task page renders it (the API keeps serving the stored task)."""
    if active("badge-done-while-running") and task.status == "in_progress":
        task = task.model_copy(update={"status": "done"})
    if active("thread-shows-twice"):
        users = [i for i, c in enumerate(task.comments) if c.author_kind == "user"]
        if users:
            at = users[-1]
            task = task.model_copy(update={"comments": [*task.comments[: at + 1], *task.comments[at:]]})
    return task


# ---- the public API ------------------------------------------------------------------------


def task_read_error(db: Database, task_id: int) -> str | None:
    """Why reading a task fails with a server error; None reads it."""
    succeeded = db.one("SELECT 1 FROM runs WHERE task_id = ? AND status = 'succeeded' LIMIT 1", task_id)
    if active("task-read-server-error") and succeeded:
        return "internal error: the task's run history could not be serialized"
    return None


# ---- the skill library (testbed/skills.py) ---------------------------------------------------------


def after_skill_created(
    conn: sqlite3.Connection, run: sqlite3.Row, name: str, body: str, insert: Callable[..., int]
) -> None:
    """After an agent's skill is stored: ``skill-created-twice`` stores the same request again as a second entry."""
    if active("skill-created-twice"):
        insert(conn, name, body, run["id"])


def card_skill(conn: sqlite3.Connection, skill_id: int, name: str, insert: Callable[..., int]) -> int | None:
    """Which skill the new thread card links to; None records no card.

    ``card-links-same-heading`` resolves the card's link by heading, and an
    archived skill of the same heading (an old import) wins; ``skill-card-missing``
    records no card at all.
    """
    if active("skill-card-missing"):
        return None
    if active("card-links-same-heading"):
        return insert(conn, name, f"# {name}\n\n(archived import)\n", None, archived=True)
    return skill_id


def cards_shown(cards: list[SkillCard]) -> list[SkillCard]:
    """The cards the task page renders (every stored one)."""
    return cards


def version_stored(skill_id: int) -> bool:
    """Whether Studio's save stores the new version; ``skill-edit-not-saved`` answers Saved and stores nothing."""
    return not active("skill-edit-not-saved")


def studio_body(revalidating: bool, versions: list[str]) -> str:
    """The body Skill Studio renders: the newest version; ``skill-edit-lost-on-reload`` answers a reload
    (a revalidating request) from the first version, as a stale cache would."""
    if active("skill-edit-lost-on-reload") and revalidating:
        return versions[0]
    return versions[-1]
