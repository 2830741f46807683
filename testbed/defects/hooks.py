"""The hooks the product calls at one well-named point each; with no defect on, each is a no-op.

Every hook takes what the normal path computed and returns it unchanged
unless a defect that hooks in there is switched on (see the registry in
:mod:`testbed.defects`). Hooks only read and write through the same database
and store the product uses, so a defect looks to a user exactly like a bug
in the product would.
"""

from __future__ import annotations

import base64
import io
import json
import logging
import sqlite3
import threading
import uuid
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from ..db import Database, now
from ..deliveries import blob_path
from ..models import AgentCreate, Comment, Connection, Delivery, Interaction, Run, RunIdentity, Task
from . import active

T = TypeVar("T")

if TYPE_CHECKING:
    from ..controller import Controller
    from ..skills import SkillCard, TaskSkill

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


def before_delivery_stored() -> None:
    """Called before a delivery's bytes are stored; ``delivery-store-fails`` fails it as a full disk would."""
    if active("delivery-store-fails"):
        raise OSError(28, "No space left on device")


def listed_deliveries(db: Database, items: list[Delivery]) -> list[Delivery]:
    """A task's deliveries as its records list them (oldest first, by contract)."""
    if active("deliveries-not-listed"):
        return []
    if active("deliveries-hidden-after-agents-second") and items and _agent_deliveries(db, items[-1].run_id) > 1:
        return []
    return items[::-1] if active("deliveries-newest-first") else items


def _agent_deliveries(db: Database, run_id: int | None) -> int:
    """How many deliveries the agent of run ``run_id`` has made, on any task."""
    row = db.one(
        "SELECT COUNT(*) AS n FROM deliveries d JOIN runs r ON r.id = d.run_id"
        " WHERE r.agent_id = (SELECT agent_id FROM runs WHERE id = ?)",
        run_id,
    )
    return 0 if row is None else int(row["n"])


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
    if active("message-stored-twice") or (active("stop-then-message-twice") and _last_run_stopped(conn, task_id)):
        _store_user_message(conn, task_id, body)
    if active("feedback-copied-to-parent"):
        parent = conn.execute("SELECT parent_id FROM tasks WHERE id = ?", (task_id,)).fetchone()
        if parent is not None and parent["parent_id"] is not None:
            _store_user_message(conn, parent["parent_id"], body)


def stored_message_body(body: str) -> str:
    """The text a user message is stored with: exactly what was sent."""
    return body.replace("\n", "\r\n") if active("message-stored-crlf") else body


def _store_user_message(conn: sqlite3.Connection, task_id: int, body: str) -> None:
    conn.execute(
        "INSERT INTO comments (task_id, author_kind, body, created_at) VALUES (?, 'user', ?, ?)",
        (task_id, body, now()),
    )


def _last_run_stopped(conn: sqlite3.Connection, task_id: int) -> bool:
    """The task's newest run was stopped by the user."""
    last = conn.execute("SELECT status FROM runs WHERE task_id = ? ORDER BY id DESC LIMIT 1", (task_id,)).fetchone()
    return last is not None and last["status"] == "cancelled"


def handed_to_agent(controller: Controller, run: sqlite3.Row, ids: list[int]) -> list[int]:
    """The message ids the inbox answer hands the runner, of the ``ids`` it just recorded as consumed by it."""
    if active("message-lost"):
        return []
    if active("restart-inbox-lost") and run["pid"] is not None and not controller.supervisor.spawned(run["pid"]):
        return []  # a runner this controller re-adopted after a restart
    if active("consumed-message-woken-again"):  # the inbox hands what earlier runs of the task consumed, again
        earlier = controller.db.all(
            "SELECT id FROM comments WHERE task_id = ? AND author_kind = 'user' AND consumed_by_run_id != ?",
            run["task_id"],
            run["id"],
        )
        return sorted({*ids, *(row["id"] for row in earlier)})
    return ids


def after_run_end(conn: sqlite3.Connection, run: sqlite3.Row, status: str) -> None:
    """Called when a run ends, inside the same transaction."""
    if active("consumed-message-woken-again") and status == "succeeded":
        read = conn.execute(
            "SELECT 1 FROM comments WHERE consumed_by_run_id = ? AND author_kind = 'user' LIMIT 1", (run["id"],)
        ).fetchone()
        if read is not None:  # the messages it read wake the task once more, as if still unread
            conn.execute("UPDATE tasks SET wake = 1 WHERE id = ?", (run["task_id"],))


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
    if active("ended-run-still-active") and pointer is None and runs:
        return runs[-1].id  # the pointer is cleared only when the next run starts
    return pointer


def after_receipt(conn: sqlite3.Connection, run: sqlite3.Row) -> None:
    """Called after a run's receipt is stored, inside the same transaction."""
    if active("run-recorded-per-step"):  # a retry bookkeeping bug: each step leaves a finished copy of its run
        conn.execute(
            "INSERT INTO runs (task_id, agent_id, adapter, model, status, runner_instance_id, pid, process_start_time,"
            " queued_at, started_at, ended_at)"
            " SELECT task_id, agent_id, adapter, model, 'succeeded', runner_instance_id, pid, process_start_time,"
            " queued_at, started_at, ? FROM runs WHERE id = ?",
            (now(), run["id"]),
        )
    if active("runner-identity-changes"):
        conn.execute("UPDATE runs SET runner_instance_id = ? WHERE id = ?", (uuid.uuid4().hex, run["id"]))
    adopted_at = _adopted_at(conn, run) if active("restart-receipt-lost") else None
    if adopted_at is not None:
        answered = conn.execute(  # receipts answered since the adoption (this one is answered after the hook)
            "SELECT COUNT(*) AS n FROM events WHERE run_id = ? AND kind = 'receipt' AND created_at >= ?",
            (run["id"], adopted_at),
        ).fetchone()
        if answered["n"] == 0:  # the first one: dropped, though the runner is told it was recorded
            conn.execute(
                "DELETE FROM receipts WHERE rowid = (SELECT MAX(rowid) FROM receipts WHERE run_id = ?)", (run["id"],)
            )


def after_agent_comment(conn: sqlite3.Connection, run: sqlite3.Row, body: str) -> None:
    """Called right after a run's reply is stored, inside the same transaction."""
    if active("restart-reply-echoed") and _adopted_at(conn, run) is not None:  # echoed as a note of no run
        conn.execute(
            "INSERT INTO comments (task_id, author_kind, agent_id, run_id, body, created_at) "
            "VALUES (?, 'agent', ?, NULL, ?, ?)",
            (run["task_id"], run["agent_id"], body, now()),
        )
    if active("restart-replies-twice") and _adopted_at(conn, run) is not None:
        conn.execute(
            "INSERT INTO comments (task_id, author_kind, agent_id, run_id, body, created_at) "
            "VALUES (?, 'agent', ?, ?, ?, ?)",
            (run["task_id"], run["agent_id"], run["id"], body, now()),
        )


def _adopted_at(conn: sqlite3.Connection, run: sqlite3.Row) -> str | None:
    """When a controller re-adopted the run after a restart (the activity feed says so); None if never."""
    row = conn.execute(
        "SELECT MIN(at) AS at FROM activity WHERE kind = 'run_adopted' AND run_id = ?", (run["id"],)
    ).fetchone()
    return None if row is None else row["at"]  # type: ignore[no-any-return]


def runs_as_recorded(db: Database, task_parent_id: int | None, runs: list[Run]) -> list[Run]:
    """A task's runs as its record serves them (the stored rows, oldest first)."""
    if active("run-identity-not-served"):
        blank = RunIdentity(runner_instance_id=None, pid=None, process_start_time=None)
        runs = [run.model_copy(update={"identity": blank}) for run in runs]
    if active("parent-run-recorded-as-teammate") and task_parent_id is None and runs:
        teammate = db.one(
            "SELECT assignee_id FROM tasks WHERE parent_id = ? AND assignee_id IS NOT NULL LIMIT 1", runs[0].task_id
        )
        if teammate is not None:  # a join on the child's assignee files the parent's runs under the teammate
            runs = [run.model_copy(update={"agent_id": teammate["assignee_id"]}) for run in runs]
    return runs


# ---- task status during runs ------------------------------------------------------------


def started_status(status: str) -> str:
    """The status a task takes when a run on it starts (``in_progress``)."""
    return "done" if active("done-while-running") else status


def run_end_moves_task() -> bool:
    """Whether a run's end moves its task on (to the Done its agent declared, in review or blocked)."""
    return not active("run-end-keeps-task-in-progress")


def settled_status(conn: sqlite3.Connection, run: sqlite3.Row, declared: str | None) -> str | None:
    """The status a succeeding run applies to its task: the one its agent declared (None: leave it to the rules)."""
    if active("stopped-task-never-done") and declared is not None:
        stopped = conn.execute(
            "SELECT 1 FROM runs WHERE task_id = ? AND status = 'cancelled' LIMIT 1", (run["task_id"],)
        ).fetchone()
        if stopped is not None:
            return None  # a "was stopped" mark never cleared: the rules leave the task in review
    return declared


# ---- Stop ----------------------------------------------------------------------------------


def stop_signals_runner() -> bool:
    """Whether Stop signals the runner's process group (it always should)."""
    return not active("stop-without-signal")


def after_stop(controller: Controller, run: sqlite3.Row) -> None:
    """Called once Stop recorded ``run`` ended; nothing may start on its task until the user asks again."""
    if active("stop-retries-run"):
        with controller.db.transaction() as conn:
            conn.execute("UPDATE tasks SET wake = 1 WHERE id = ? AND status != 'cancelled'", (run["task_id"],))


def stop_recorded() -> bool:
    """Whether a run the user stopped is recorded ended (by Stop itself, or by the monitor once its runner is gone)."""
    return not active("stop-end-not-recorded")


def stopped_outcome(status: str, error_code: str) -> tuple[str, str | None]:
    """The status and error code Stop records for the run it ended (``cancelled`` / ``stopped_by_user``)."""
    return ("succeeded", None) if active("stop-records-succeeded") else (status, error_code)


# ---- restart and re-adoption -----------------------------------------------------------------


def controller_instance_id(data_dir: Path, fresh: str) -> str:
    """The id a starting controller reports in its health answer (``fresh``: new on every start)."""
    if not active("restart-reuses-instance-id"):
        return fresh
    kept = data_dir / "controller-instance-id"
    if kept.exists():
        return kept.read_text().strip()
    kept.write_text(fresh)
    return fresh


def shutting_down(controller: Controller) -> None:
    """Called when the controller shuts down gracefully; its runners must keep working without it."""
    if active("shutdown-hangs"):
        log.warning("defect shutdown-hangs: the shutdown waits for ever")
        threading.Event().wait()
    if not active("restart-kills-runners"):
        return
    for row in controller.db.all("SELECT * FROM runs WHERE status = 'running' AND pid IS NOT NULL"):
        identity = controller._identity(row)
        if identity is not None:
            log.warning("defect restart-kills-runners: killing run %s (pid %s)", row["id"], identity.pid)
            controller.supervisor.stop_group(identity)


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
    if active("restart-fails-last-step"):
        with controller.db.transaction() as conn:
            conn.execute(
                "UPDATE receipts SET ok = 0, detail = 'interrupted by a controller restart' WHERE rowid = "
                "(SELECT MAX(rowid) FROM receipts WHERE run_id = ?)",
                (row["id"],),
            )
        log.warning("defect restart-fails-last-step: marked the last receipt of run %s failed", row["id"])
    if active("restart-second-run"):
        log.warning("defect restart-second-run: run %s not re-adopted; starting another", row["id"])
        controller.end_run(row["id"], "failed", error_code="process_lost", terminal={"at": "restart"})
        with controller.db.transaction() as conn:
            conn.execute("UPDATE tasks SET wake = 1 WHERE id = ?", (row["task_id"],))
        return True
    return False


# ---- delegation and assignment -----------------------------------------------------------------


def hired_reports_to(reports_to: int | None) -> int | None:
    """The manager stored for an agent being hired, given the one the request named."""
    return None if active("reports-to-ignored") else reports_to


def hired_adapter(chosen: str) -> str:
    """The runner the hire form stores, given the one the person chose."""
    from agents.adapters import adapter_names

    return adapter_names()[0] if active("hire-runner-ignored") else chosen


def hired_manager(chosen: str) -> str:
    """The manager the hire form stores (an id as text, empty for nobody), given the one the person chose."""
    return "" if active("hire-form-drops-manager") else chosen


def run_agent(conn: sqlite3.Connection, task_id: int, assignee: sqlite3.Row) -> sqlite3.Row:
    """The agent a new run on a task is started for, given the task's assignee."""
    if active("child-run-by-delegator"):
        delegator = conn.execute(
            "SELECT a.* FROM tasks t JOIN runs r ON r.id = t.created_by_run_id JOIN agents a ON a.id = r.agent_id"
            " WHERE t.id = ?",
            (task_id,),
        ).fetchone()
        if delegator is not None:
            return delegator  # type: ignore[no-any-return]
    return assignee


def hired_connections(chosen: list[str]) -> list[str]:
    """The connections the hire form binds the new agent to, given the ones the person ticked."""
    return [] if active("hire-connections-dropped") else chosen


def hire_form_managers(agents: list[T]) -> list[T]:
    """The agents the hire form offers under Reports to (all of them)."""
    return [] if active("hire-form-lists-no-managers") else agents


def hire_form_connection_values(ticked: list[str]) -> list[str]:
    """The values the hire form's ticked connection boxes submit (each connection's id)."""
    return [f"connection-{ident}" for ident in ticked] if active("hire-form-prefixes-connections") else ticked


def hire_form_copies(hired: AgentCreate) -> list[AgentCreate]:
    """Further agents one press of the hire form stores (a double submit the form does not guard against)."""
    if not active("hire-stored-twice"):
        return []
    return [hired.model_copy(update={"name": f"{hired.name} 2"})]


def child_assignee(conn: sqlite3.Connection, run: sqlite3.Row, named: sqlite3.Row) -> sqlite3.Row:
    """The agent a delegated child task is assigned to, given the agent the delegating run named."""
    if active("child-assigned-to-lead"):
        return conn.execute("SELECT * FROM agents WHERE id = ?", (run["agent_id"],)).fetchone()  # type: ignore[no-any-return]
    if (
        active("delegation-hires-copy")
        and conn.execute("SELECT 1 FROM tasks WHERE assignee_id = ?", (named["id"],)).fetchone()
    ):
        return _copy_of(conn, named)
    return named


def _copy_of(conn: sqlite3.Connection, agent: sqlite3.Row) -> sqlite3.Row:
    """A new agent like ``agent`` (same role, manager, runner and connections) under the next free name."""
    number = 2
    while conn.execute("SELECT 1 FROM agents WHERE name = ?", (f"{agent['name']} {number}",)).fetchone():
        number += 1
    cursor = conn.execute(
        "INSERT INTO agents (name, role, reports_to, adapter, model, budget_cents, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            f"{agent['name']} {number}",
            agent["role"],
            agent["reports_to"],
            agent["adapter"],
            agent["model"],
            None,
            now(),
        ),
    )
    conn.execute(
        "INSERT INTO connection_agents (connection_id, agent_id) SELECT connection_id, ? FROM connection_agents"
        " WHERE agent_id = ?",
        (cursor.lastrowid, agent["id"]),
    )
    return conn.execute("SELECT * FROM agents WHERE id = ?", (cursor.lastrowid,)).fetchone()  # type: ignore[no-any-return]


# ---- what the UI renders ------------------------------------------------------------------------


def as_shown(task: Task) -> Task:
    """The task as the task page renders it (the API keeps serving the stored task)."""
    if active("thread-hides-newest-message"):
        users = [i for i, c in enumerate(task.comments) if c.author_kind == "user"]
        if users:  # a thread window that ends one message early
            task = task.model_copy(update={"comments": [c for i, c in enumerate(task.comments) if i != users[-1]]})
    if active("download-link-broken"):  # the page links the download without the API's prefix: 404
        shown = [d.model_copy(update={"download_url": d.download_url.removeprefix("/api")}) for d in task.deliveries]
        task = task.model_copy(update={"deliveries": shown})
    if active("badge-done-while-running") and task.status == "in_progress":
        task = task.model_copy(update={"status": "done"})
    if active("badge-stuck-in-progress") and task.status in ("done", "in_review"):
        task = task.model_copy(update={"status": "in_progress"})
    if active("thread-shows-twice"):
        users = [i for i, c in enumerate(task.comments) if c.author_kind == "user"]
        if users:
            at = users[-1]
            task = task.model_copy(update={"comments": [*task.comments[: at + 1], *task.comments[at:]]})
    return task


def created_task_url(task_id: int) -> str:
    """Where the new-task form sends the person: the new task's page."""
    return "/" if active("new-task-lands-on-list") else f"/tasks/{task_id}"


def child_link(parent_id: int, child_id: int) -> str:
    """Where a child task's link on its parent's page leads: the child's page."""
    return f"/tasks/{parent_id if active('child-link-opens-parent') else child_id}"


def stop_result_as_shown(stopped: Run | None) -> Run | None:
    """The stopped run the task page reports (the newest one); None reports no Stop."""
    return None if active("stop-result-hidden") else stopped


# ---- the public API ------------------------------------------------------------------------


HANG_S = 20.0
"""Longer than any client of the API waits (the harness's drivers give up after 15 s)."""
TASK_READ_FAULTS = {"task-read-server-error": "error", "task-read-not-json": "not-json", "task-read-hangs": "hang"}


def task_read_fault(db: Database, task_id: int) -> str | None:
    """How reading a task fails once a run on it has succeeded ("error", "not-json" or "hang"); None reads it."""
    fault = next((fault for name, fault in TASK_READ_FAULTS.items() if active(name)), None)
    if fault and db.one("SELECT 1 FROM runs WHERE task_id = ? AND status = 'succeeded' LIMIT 1", task_id):
        return fault
    return None


# ---- decisions on service actions --------------------------------------------------------------


def asks_first(protected: bool) -> bool:
    """Whether an agent's action waits for a person's decision: exactly when the connection's policy protects it."""
    return protected and not active("ask-first-not-enforced")


def decision_saved() -> bool:
    """Whether a person's Approve or Decline on a pending card is saved (it always should be)."""
    return not active("decision-not-saved")


def forwards_before_decision() -> bool:
    """Whether an Ask-first action is forwarded the moment the agent asks (it never should be)."""
    return active("forwards-before-approval")


def forwards_on_approval() -> int:
    """How many times Approve forwards the action (once)."""
    return 2 if active("forwards-twice") else 1


def forwards_on_decline() -> bool:
    """Whether Decline forwards the action all the same (it never should)."""
    return active("forwards-after-decline")


def asks_again_after_not_now(saved_status: str) -> bool:
    """Whether a repeated connection request opens a new card although the person answered (it never should)."""
    return active("intent-shown-again") and saved_status == "declined"


def after_not_now(conn: sqlite3.Connection, row: sqlite3.Row, sealed_empty: bytes) -> None:
    """Called inside the transaction that saves Not now on a connection request."""
    if active("native-falls-back-to-aggregators"):
        _fall_back_to_aggregators(conn, row)
    if active("not-now-connects"):
        made = _connect(conn, row["provider"], sealed_empty)
        conn.execute("INSERT INTO connection_agents (connection_id, agent_id) VALUES (?, ?)", (made, row["agent_id"]))


def _connect(conn: sqlite3.Connection, provider: str, sealed: bytes) -> int:
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


def wakes_after_decision() -> bool:
    """Whether a decision wakes its task for a new run to read it (when the run that asked has ended)."""
    return not active("decision-wakes-nothing")


def decided_by(person: str) -> str:
    """Who a decision is stored as made by: the person who clicked."""
    return "agent" if active("decision-filed-under-agent") else person


def resaves_repeated_decision() -> bool:
    """Whether a repeat of a saved decision saves it again, under a new time (a repeat changes nothing)."""
    return active("decision-resaved-on-second-click")


SAMPLE_SERVICE = "Sample Drive"


def seed_company(db: Database, seal: Callable[[str], bytes]) -> None:
    """Called once the controller has opened its data folder: a new company has nothing installed or connected."""
    if not active("connection-seeded-at-start"):
        return
    with db.transaction() as conn:
        if conn.execute("SELECT 1 FROM services LIMIT 1").fetchone() is None:  # a new company
            _connect(conn, SAMPLE_SERVICE, seal("sample"))


# Tasks whose email card was drawn, and those a later whole-page load redrew as a reminder: a render cache in
# the controller's memory (gone with the process, as such a cache would be).
_email_cards_drawn: set[int] = set()
_email_cards_redrawn: set[int] = set()


def email_card_as_shown(card: dict[str, object], task_id: int, pending: bool, whole_page: bool) -> dict[str, object]:
    """How the email setup card is drawn on task ``task_id`` (``pending``: it has one waiting; ``whole_page``: the
    page is loaded, not its live part refreshed): its key link, its password fields and nothing else to fill in."""
    if active("email-card-two-password-fields"):
        card = {**card, "password_fields": 2}
    if active("email-card-no-key-link"):
        card = {**card, "key_page": None}
    if active("email-card-key-link-elsewhere"):  # a look-alike host: https, and not AgentMail's page
        card = {**card, "key_page": "https://console.agentmail.to.keys-portal.example/"}
    if active("email-card-shows-access-selector"):
        card = {**card, "access_options": ["Read only", "Read and send"]}
    if active("email-card-changes-on-reload") and pending:
        if whole_page and task_id in _email_cards_drawn:
            _email_cards_redrawn.add(task_id)
        _email_cards_drawn.add(task_id)
        if task_id in _email_cards_redrawn:
            card = {**card, "reminder": "is still waiting for an AgentMail API key"}
    return card


def forwarding_credential(credential: str) -> str | None:
    """The credential the controller sends with a forwarded call (the connection's own; None sends none)."""
    return None if active("forwards-without-credential") else credential


def interactions_as_shown(found: list[Interaction]) -> list[Interaction]:
    """The decision cards as the task page renders them (the API keeps serving the stored interactions)."""
    if active("card-hidden"):
        return []
    if active("card-names-another-agent"):
        found = [i.model_copy(update={"agent_name": "Someone else"}) for i in found]
    if active("card-shown-twice"):
        found = [copy for i in found for copy in ([i, i] if i.status == "pending" else [i])]
    return found


# ---- connection credentials ------------------------------------------------------------------------


def connections_as_served(found: list[Connection], opened: Callable[[int], str]) -> list[dict[str, object]] | None:
    """The connections list as answered, when a defect changes it; None answers the models as they are."""
    if active("credential-in-api"):
        return [{**c.model_dump(), "credential": opened(c.id)} for c in found]
    if active("credential-in-api-encoded"):  # "only an opaque token": the credential, base64-encoded
        return [{**c.model_dump(), "token": base64.b64encode(opened(c.id).encode()).decode()} for c in found]
    return None


def rendered_credentials(found: list[Connection], opened: Callable[[int], str]) -> dict[int, str]:
    """Credentials the services list renders, by connection id (none)."""
    if active("credential-rendered"):
        return {c.id: opened(c.id) for c in found}
    return {}


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


def sidebar_entries(db: Database, entries: list[TaskSkill]) -> list[TaskSkill]:
    """The skills a task's sidebar lists, each with the skill its link opens (normally itself)."""
    if active("sidebar-lists-skill-twice"):  # a read of the skill just created lists it again, as used
        entries = [*entries, *(e.model_copy(update={"relation": "used"}) for e in entries if e.relation == "created")]
    if active("sidebar-links-same-heading"):
        entries = [e.model_copy(update={"link_id": _same_heading_import(db, e.skill.name)}) for e in entries]
    return entries


def _same_heading_import(db: Database, name: str) -> int:
    """The archived import with heading ``name`` the sidebar resolves its link to (stored on first need)."""
    with db.transaction() as conn:
        row = conn.execute("SELECT id FROM skills WHERE name = ? AND archived = 1", (name,)).fetchone()
        if row is not None:
            return int(row["id"])
        from ..skills import _insert_skill

        return _insert_skill(conn, name, f"# {name}\n\n(archived import)\n", None, archived=True)


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


# ---- provider questions (testbed/providers.py) ------------------------------------------------------


def question_options(options: list[str]) -> list[str]:
    """The choices a new provider question offers: the catalog's aggregators in order, then None."""
    if active("provider-options-reordered"):
        return sorted(options[:-1]) + options[-1:]
    if active("provider-none-missing"):
        return options[:-1]
    return options


def question_disclosure(text: str) -> str | None:
    """What a new provider question says about where the data goes (None: nothing)."""
    if active("provider-disclosure-negated"):  # the words of a disclosure, saying the opposite
        return "Choosing an aggregator keeps your data here: nothing goes to an external service."
    return None if active("provider-no-disclosure") else text


def warms_route() -> bool:
    """Whether opening a provider question calls the installed aggregators at once (it never should)."""
    return active("gateway-called-before-choice")


def asks_provider_again(saved_status: str) -> bool:
    """Whether an agent's repeated ask opens a second question although the person answered (it never should)."""
    return active("provider-asked-again") and saved_status != "pending"


def route_connection(conn: sqlite3.Connection, gateway: sqlite3.Row, agent_id: int) -> int:
    """The connection a chosen aggregator reaches the provider through: the gateway's own."""
    if not active("provider-choice-duplicates-connection"):
        return int(gateway["id"])
    made = conn.execute(
        "INSERT INTO connections (service_id, name, credential_sealed, policy, created_at) VALUES (?, ?, ?, ?, ?)",
        (gateway["service_id"], f"{gateway['name']} (route)", gateway["credential_sealed"], gateway["policy"], now()),
    )
    return int(made.lastrowid or 0)


def recovering_questions(controller: Controller) -> None:
    """Called at start-up, before runs are re-adopted: pending provider questions must survive it."""
    if not active("question-lost-on-restart"):
        return
    with controller.db.transaction() as conn:
        dropped = conn.execute(
            "DELETE FROM interactions WHERE kind = 'provider_question' AND status = 'pending' AND run_id NOT IN "
            "(SELECT id FROM runs WHERE status IN ('queued', 'running'))"
        ).rowcount
    log.warning("defect question-lost-on-restart: dropped %s pending provider question(s)", dropped)


def _fall_back_to_aggregators(conn: sqlite3.Connection, row: sqlite3.Row) -> None:
    """After Not now on a native card, a provider question for the same provider (the defect's fallback)."""
    from ..providers import NONE, disclosure, entry

    found = entry(row["provider"] or "")
    if found is None or not found.aggregators:
        return
    conn.execute(
        "INSERT INTO interactions (kind, task_id, run_id, agent_id, provider, action, arguments_json, status, outcome, "
        "options_json, disclosure, created_at) VALUES ('provider_question', ?, ?, ?, ?, 'choose_provider', '{}', "
        "'pending', 'waiting', ?, ?, ?)",
        (
            row["task_id"],
            row["run_id"],
            row["agent_id"],
            found.name,
            json.dumps([*found.aggregators, NONE]),
            disclosure(found.name, found.aggregators),
            now(),
        ),
    )


# ---- metering (testbed/agent_ops.py) ---------------------------------------------------------------


def meters_call_twice(admission: bool) -> bool:
    """Whether a model call's admission is recorded twice (each then completes apart: one call, billed twice)."""
    return admission and active("model-call-metered-twice")


def skips_model_call(refused: str | None) -> bool:
    """True when the product acknowledges a forwarded call's report (admission or completion) and records nothing."""
    return active("model-call-admission-skipped") and refused is None
