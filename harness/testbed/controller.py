"""The controller's run lifecycle: queue, start, adopt, monitor, finish, stop.

All transitions are conditional updates (``WHERE status = ...``) inside one
transaction, so a runner that finishes while the monitor looks at it, or a
Stop racing a finish, can never overwrite a terminal record.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
import sqlite3
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from harness.agents.issued_secrets import record_run_token

from . import budgets
from .credentials import CredentialBox
from .db import Database, now, record_activity
from .failpoints import failpoint
from .live import LiveChanges
from .models import RunLease
from .sandbox import leases
from .sandbox.containers import ContainerRunners
from .supervisor import Identity, RunnerSpec, Supervisor

SCRIPTED_ADAPTER = "scripted"
# Why a person's action ended a run: their Stop, or their pausing or terminating its agent.
STOPPED_BY_USER, PAUSED_BY_USER, TERMINATED_BY_USER = "stopped_by_user", "paused_by_user", "terminated_by_user"

log = logging.getLogger("testbed.controller")

# A message only wakes a task when it is newer than the task's last failed or
# cancelled run: Stop and crashes must not restart work on their own, and a
# new message then carries every earlier unconsumed one into the next run.
PENDING_TASKS_SQL = """
SELECT * FROM (
  SELECT t.id, t.assignee_id, t.wake, t.wake_cause, EXISTS (
        SELECT 1 FROM comments c
        WHERE c.task_id = t.id AND c.author_kind = 'user' AND c.consumed_by_run_id IS NULL
          AND c.created_at > COALESCE((SELECT MAX(r2.ended_at) FROM runs r2
                                       WHERE r2.task_id = t.id AND r2.status IN ('failed', 'cancelled')), '')
  ) AS message_waiting FROM tasks t
  WHERE t.assignee_id IS NOT NULL AND t.status != 'cancelled'
    AND NOT EXISTS (SELECT 1 FROM agents a WHERE a.id = t.assignee_id AND a.paused_reason IS NOT NULL)
    AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.task_id = t.id AND r.status IN ('queued', 'running'))
) WHERE wake = 1 OR message_waiting
ORDER BY id
"""


def run_cause(pending: sqlite3.Row) -> str | None:
    """Why a pending task gets a run: what woke it, else a waiting user message; None when nothing asked."""
    if pending["wake"] and pending["wake_cause"]:
        return str(pending["wake_cause"])
    return "user_message" if pending["message_waiting"] else None


# A recognisable prefix lets secret scanners find run tokens wherever they leak.
RUN_TOKEN_PREFIX = "tbrun_"


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass
class Controller:
    data_dir: Path
    url: str
    pace: float
    model_upstream: str | None = (
        None  # where live agents' metering proxies send model calls (the replay server); None: the providers
    )
    agent_time_limit_s: float = 600.0
    issued_secrets: Path | None = None  # the harness's ledger of minted run tokens (see agents.issued_secrets)
    db: Database = field(init=False)
    credentials: CredentialBox = field(init=False)
    supervisor: Supervisor = field(default_factory=Supervisor)
    # The container environment: each run's runner in its own container (testbed/sandbox); None: local processes.
    sandbox: ContainerRunners | None = None
    instance_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    # Told whenever the product has a live (non-scripted) agent: hired, found at start-up, or its run starting.
    # The app loads its MCP tool server then (see mcp_mount), not at every start.
    live_agent_present: Callable[[], None] = field(default=lambda: None)
    # Told when a request left work for the scheduler (a new task, a message, a run's end): it looks at once, not at
    # its next tick (the scheduler's ``wake``).
    work_waiting: Callable[[], None] = field(default=lambda: None)
    # An operator asked that this controller's shutdown drain its running runs (testbed/drain.py); off: they go on.
    drain_requested: bool = False

    def __post_init__(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        (self.data_dir / "logs").mkdir(exist_ok=True)
        self.db = Database(self.data_dir / "testbed.sqlite3")
        self.live = LiveChanges(self.db.path)  # tells the open task pages of every commit (started with the app)
        self.db.on_commit = self.live.poke
        self.credentials = CredentialBox(self.data_dir)
        failpoint("controller.opened", db=self.db, seal=self.credentials.seal)
        self.instance_id = failpoint("controller.instance-id", self.instance_id, data_dir=self.data_dir)

    def workspace(self, task_id: int) -> Path:
        return self.data_dir / "workspaces" / f"task-{task_id}"

    @contextmanager
    def run_workspace(self, run: sqlite3.Row) -> Iterator[Path]:
        """The run's workspace as its runner sees it now: a copy out of its sandbox while it has an active lease
        (the workspace lives there until the run's end), else the task's folder here."""
        lease = leases.lease_of(self.db.connection(), run["id"]) if self.sandbox is not None else None
        if self.sandbox is None or lease is None or not lease.active:
            yield self.workspace(run["task_id"])
            return
        with self.sandbox.workspace_now(lease) as folder:
            yield folder

    def has_live_agents(self) -> bool:
        """Whether any agent runs a real agent CLI (the only users of the MCP tool server)."""
        return self.db.one("SELECT 1 FROM agents WHERE adapter != ? LIMIT 1", SCRIPTED_ADAPTER) is not None

    # ---- scheduling -------------------------------------------------------

    def queue_pending(self) -> list[int]:
        """Queue one run for each task that has work waiting and nothing active."""
        queued: list[int] = []
        with self.db.transaction() as conn:
            for row in conn.execute(PENDING_TASKS_SQL).fetchall():
                assignee = conn.execute("SELECT * FROM agents WHERE id = ?", (row["assignee_id"],)).fetchone()
                # A paused or terminated agent is given no run: its task keeps the work waiting (testbed/team.py).
                if not failpoint("run.agent-may-work", assignee["status"] == "active", conn=conn, agent=assignee):
                    continue
                agent = failpoint("run.agent", assignee, conn=conn, task_id=row["id"])
                cursor = conn.execute(
                    "INSERT INTO runs (task_id, agent_id, adapter, model, status, queued_at, cause) "
                    "VALUES (?, ?, ?, ?, 'queued', ?, ?)",
                    (row["id"], agent["id"], agent["adapter"], agent["model"], now(), run_cause(row)),
                )
                conn.execute("UPDATE tasks SET wake = 0, wake_cause = NULL WHERE id = ?", (row["id"],))
                run_id = int(cursor.lastrowid or 0)
                record_activity(conn, "run_queued", f"Run {run_id} queued for {agent['name']}", row["id"], run_id)
                queued.append(run_id)
        return queued

    def start_queued(self) -> None:
        for row in self.db.all("SELECT id, task_id FROM runs WHERE status = 'queued' ORDER BY id"):
            if self.sandbox is not None and leases.task_held(self.db, row["task_id"]):
                continue  # the task's workspace is still in its last run's sandbox: it comes back first
            self.start(row["id"])

    def start(self, run_id: int) -> None:
        """Record the run as running (with its token) before spawning, then record the identity.

        A controller killed between the two leaves a running run without a pid:
        the next start-up adopts the runner by its instance id, or, when it never
        started, ends the run and wakes the task (see :meth:`_adopt_unrecorded`).
        """
        token = RUN_TOKEN_PREFIX + secrets.token_urlsafe(32)
        record_run_token(self.issued_secrets, run_id, token)
        runner_instance_id = uuid.uuid4().hex
        log_path = self.data_dir / "logs" / f"run-{run_id}.log"
        with self.db.transaction() as conn:
            run = conn.execute("SELECT * FROM runs WHERE id = ? AND status = 'queued'", (run_id,)).fetchone()
            if run is None:
                return
            conn.execute(
                "UPDATE runs SET status = 'running', started_at = ?, token_hash = ?, runner_instance_id = ?, "
                "log_path = ? WHERE id = ?",
                (now(), token_hash(token), runner_instance_id, str(log_path), run_id),
            )
            conn.execute(
                "UPDATE tasks SET status = ?, updated_at = ? WHERE id = ? AND status != 'cancelled'",
                (failpoint("run.start.task-status", "in_progress"), now(), run["task_id"]),
            )
        spec = RunnerSpec(
            run_id=run_id,
            controller_url=self.url,
            token=token,
            adapter=run["adapter"],
            model=run["model"],
            workspace=self.workspace(run["task_id"]),
            pace=self.pace,
            log_path=log_path,
            runner_instance_id=runner_instance_id,
            model_upstream=self.model_upstream,
            time_limit_s=self.agent_time_limit_s,
        )
        if spec.adapter != SCRIPTED_ADAPTER:
            self.live_agent_present()
        try:
            if self.sandbox is not None:
                lease = self.sandbox.spawn(spec)
            else:
                identity = self.supervisor.spawn(spec)
        except OSError as error:
            log.exception("could not spawn runner for run %s", run_id)
            self.end_run(run_id, "failed", error_code="spawn_failed", terminal={"reason": str(error)})
            return
        if self.sandbox is not None:
            leases.record(self.db, run_id, run["task_id"], lease)
            with self.db.transaction() as conn:
                record_activity(conn, "run_started", f"Run {run_id} started in a sandbox", run["task_id"], run_id)
            log.info("run %s started in sandbox %s, runner %s", run_id, lease.sandbox_id[:12], runner_instance_id)
            return
        with self.db.transaction() as conn:
            conn.execute(
                "UPDATE runs SET pid = ?, process_start_time = ? WHERE id = ?",
                (identity.pid, identity.start_time, run_id),
            )
            record_activity(conn, "run_started", f"Run {run_id} started (pid {identity.pid})", run["task_id"], run_id)
        log.info("run %s started: pid %s runner %s", run_id, identity.pid, runner_instance_id)

    # ---- liveness ---------------------------------------------------------

    def recover(self) -> None:
        """On start-up: re-adopt runners whose pid and start time (or sandbox lease) still match; the rest are lost."""
        failpoint("controller.recover", db=self.db)
        for row in self.db.all("SELECT * FROM runs WHERE status = 'running' ORDER BY id"):
            failpoint("restart.recovering-run", db=self.db, run=row)
            alive = self._lease_alive(row, self.sandbox) if self.sandbox is not None else self._process_alive(row)
            if alive is None:
                continue
            if failpoint("restart.runner-alive", alive, db=self.db, run=row):
                log.info("run %s re-adopted", row["id"])
                with self.db.transaction() as conn:
                    record_activity(
                        conn, "run_adopted", f"Run {row['id']} re-adopted after restart", row["task_id"], row["id"]
                    )
            else:
                log.warning("run %s lost while the controller was down", row["id"])
                self._end_dead(row, "process_lost", {"at": "restart"})

    def _process_alive(self, row: sqlite3.Row) -> bool | None:
        """Whether a local run's runner still runs, by pid and start time; None when it never started."""
        identity = self._identity(row) or self._adopt_unrecorded(row)
        return None if identity is None else self.supervisor.is_alive(identity)

    def _lease_alive(self, row: sqlite3.Row, sandbox: ContainerRunners) -> bool | None:
        """Whether a sandboxed run's lease is live (same container, same start, running); None when it never started.

        A run without a recorded lease is adopted by its runner instance's container, or ends ``spawn_interrupted``.
        """
        lease = leases.lease_of(self.db.connection(), row["id"])
        if lease is None and row["runner_instance_id"]:
            lease = sandbox.find(row["runner_instance_id"])
            if lease is not None:
                leases.record(self.db, row["id"], row["task_id"], lease)
        if lease is None:
            self._interrupted(row)
            return None
        return bool(failpoint("sandbox.lease-alive", sandbox.is_alive(lease), db=self.db, run=row))

    def _adopt_unrecorded(self, row: sqlite3.Row) -> Identity | None:
        """A run the last controller marked running but died before recording its runner's pid.

        If that runner was spawned, it is found by its instance id and its
        identity recorded; if it never started, the run ends ``spawn_interrupted``
        and the task is woken, so the user's waiting messages still get a run.
        """
        found = self.supervisor.find(row["runner_instance_id"]) if row["runner_instance_id"] else None
        if found is not None:
            with self.db.transaction() as conn:
                conn.execute(
                    "UPDATE runs SET pid = ?, process_start_time = ? WHERE id = ? AND pid IS NULL",
                    (found.pid, found.start_time, row["id"]),
                )
            return found
        self._interrupted(row)
        return None

    def _interrupted(self, row: sqlite3.Row) -> None:
        """A run whose runner never started: it ends ``spawn_interrupted`` and its task is woken."""
        log.warning("run %s never started: the controller died while spawning it", row["id"])
        if self.end_run(row["id"], "failed", error_code="spawn_interrupted", terminal={"at": "restart"}):
            with self.db.transaction() as conn:
                conn.execute(
                    "UPDATE tasks SET wake = 1, wake_cause = 'recovery' WHERE id = ? AND status != 'cancelled'",
                    (row["task_id"],),
                )

    def monitor(self) -> None:
        """End running runs whose process has exited without reporting a finish."""
        if self.sandbox is not None:
            self._monitor_leases(self.sandbox)
            return
        for row in self.db.all("SELECT * FROM runs WHERE status = 'running' AND pid IS NOT NULL"):
            identity = self._identity(row)
            assert identity is not None
            if self.supervisor.is_alive(identity):
                continue
            # A runner we spawned that exits without finishing crashed; one we adopted is simply gone.
            error = "runner_crashed" if self.supervisor.spawned(identity.pid) else "process_lost"
            self._end_dead(row, error, {"exit_code": self.supervisor.exit_code(identity.pid)})

    def _monitor_leases(self, sandbox: ContainerRunners) -> None:
        """End running runs whose sandbox stopped without a finish; release the sandboxes of ended runs."""
        for row in self.db.all("SELECT * FROM runs WHERE status = 'running'"):
            lease = leases.lease_of(self.db.connection(), row["id"])
            if lease is None or sandbox.is_alive(lease):
                continue
            error = "runner_crashed" if sandbox.spawned(lease) else "process_lost"
            self._end_dead(row, error, {"exit_code": sandbox.exit_code(lease)})
        sandbox.release_ended()

    def _end_dead(self, row: sqlite3.Row, error_code: str, terminal: dict[str, object]) -> None:
        """A runner that died after Stop was asked for was stopped, not lost: Stop records it cancelled."""
        fresh = self.db.one("SELECT stop_requested_at FROM runs WHERE id = ?", row["id"])
        if fresh is not None and fresh["stop_requested_at"]:
            self.end_stopped(row["id"])
        else:
            self.end_run(row["id"], "failed", error_code=error_code, terminal={"reason": "runner exited", **terminal})

    @staticmethod
    def _identity(row: object) -> Identity | None:
        pid, start = row["pid"], row["process_start_time"]  # type: ignore[index]
        return None if pid is None or start is None else Identity(pid=pid, start_time=start)

    # ---- terminal transitions --------------------------------------------

    def end_run(
        self,
        run_id: int,
        status: str,
        *,
        error_code: str | None = None,
        terminal: dict[str, object] | None = None,
        cost_cents: int = 0,
        group_gone: bool | None = None,
    ) -> bool:
        """Move an active run to a terminal status once; False when it already ended."""
        with self.db.transaction() as conn:
            ended = end_run_in(conn, run_id, status, error_code, terminal, cost_cents, group_gone)
        if ended:
            log.info("run %s ended: %s %s", run_id, status, error_code or "")
        return ended

    def end_stopped(self, run_id: int, group_gone: bool | None = None) -> bool:
        """Record a run the user (or its agent's budget pause) stopped, whichever path sees it end first (Stop
        itself or the monitor): the cause stored when the stop was asked for says why."""
        row = self.db.one("SELECT stop_cause FROM runs WHERE id = ?", run_id)
        why = (row["stop_cause"] if row is not None else None) or STOPPED_BY_USER
        if why == budgets.BUDGET:
            return self.end_run(
                run_id,
                "cancelled",
                error_code=budgets.PAUSED_ERROR,
                terminal={"reason": "its agent was paused for budget"},
                group_gone=group_gone,
            )
        status, error_code = failpoint("stop.outcome", ("cancelled", why))
        record_end = failpoint("stop.record-end", self.end_run)
        return record_end(
            run_id, status, error_code=error_code, terminal={"reason": why.replace("_", " ")}, group_gone=group_gone
        )

    def stop_paused(self) -> None:
        """Stop every run a budget pause asked to stop, as Stop stops a run."""
        for run_id in budgets.runs_to_stop(self.db):
            self.stop(run_id)

    def stop(self, run_id: int, why: str = STOPPED_BY_USER) -> bool:
        """Kill the run's whole process group, then record it cancelled; returns whether the group is gone.

        ``why``: the run's error code, the person's Stop or their pausing its agent (``PAUSED_BY_USER``).
        """
        with self.db.transaction() as conn:
            conn.execute(
                "UPDATE runs SET stop_requested_at = ?, stop_cause = COALESCE(stop_cause, ?)"
                " WHERE id = ? AND stop_requested_at IS NULL",
                (now(), why, run_id),
            )
        row = self.db.one("SELECT * FROM runs WHERE id = ?", run_id)
        assert row is not None
        identity = self._identity(row)
        lease = leases.lease_of(self.db.connection(), run_id)
        if lease is not None and self.sandbox is not None:
            gone = self._stop_sandbox(run_id, lease, self.sandbox)
        elif identity is None:
            gone = True
        else:
            gone = failpoint("stop.signal", self.supervisor.stop_group)(identity)
        if not self.end_stopped(run_id, group_gone=gone):
            with self.db.transaction() as conn:
                conn.execute("UPDATE runs SET process_group_gone = ? WHERE id = ?", (gone, run_id))
        failpoint("stop.after", db=self.db, run=row)
        return gone

    def _stop_sandbox(self, run_id: int, lease: RunLease, sandbox: ContainerRunners) -> bool:
        """Stop the run's container; once it is gone, bring its workspace back and release the lease at once."""
        gone = bool(failpoint("sandbox.stop", sandbox.stop)(lease))
        if gone:
            self.end_stopped(run_id, group_gone=True)
            sandbox.release_ended()
        return gone


def end_run_in(
    conn: sqlite3.Connection,
    run_id: int,
    status: str,
    error_code: str | None,
    terminal: Mapping[str, object] | None,
    cost_cents: int = 0,
    group_gone: bool | None = None,
) -> bool:
    """The terminal transition inside the caller's transaction (the agent API's finish uses it too)."""
    run = conn.execute("SELECT * FROM runs WHERE id = ? AND status IN ('queued', 'running')", (run_id,)).fetchone()
    if run is None:
        return False
    record = {"status": status, "error_code": error_code, **(terminal or {})}
    conn.execute(
        "UPDATE runs SET status = ?, ended_at = ?, error_code = ?, terminal_json = ?, cost_cents = ?, "
        "process_group_gone = COALESCE(?, process_group_gone) WHERE id = ?",
        (status, now(), error_code, json.dumps(record), cost_cents, group_gone, run_id),
    )
    failpoint("run.end.move-task", _move_task_on)(conn, run, status)
    if status == "succeeded" and run["settle_status"] != "done" and failpoint("decision.wakes-task", True):
        # A person answered this run's request while it still ran, and it ended without settling its task:
        # the answer wakes a continuation, as it would have had the run ended first (interactions.decide).
        conn.execute(
            "UPDATE tasks SET wake = 1, wake_cause = 'user_decision' WHERE id = ? AND status != 'cancelled' AND EXISTS "
            "(SELECT 1 FROM interactions WHERE run_id = ? AND status != 'pending')",
            (run["task_id"], run_id),
        )
    suffix = f" ({error_code})" if error_code else ""
    record_activity(conn, f"run_{status}", f"Run {run_id} {status}{suffix}", run["task_id"], run_id)
    failpoint("run.ended", conn=conn, run=run, status=status)
    return True


def _move_task_on(conn: sqlite3.Connection, run: sqlite3.Row, status: str) -> None:
    """A run that succeeds applies the Done its agent declared; one that ends without the agent
    settling its task leaves it for review (success) or blocked (failure, Stop); a task the
    agent already settled otherwise keeps its status."""
    declared = failpoint("run.end.declared-status", run["settle_status"], conn=conn, run=run)
    if status == "succeeded" and declared:
        conn.execute("UPDATE tasks SET status = ?, updated_at = ? WHERE id = ?", (declared, now(), run["task_id"]))
    else:
        settled = "in_review" if status == "succeeded" else "blocked"
        conn.execute(
            "UPDATE tasks SET status = ?, updated_at = ? WHERE id = ? AND status IN ('todo', 'in_progress')",
            (settled, now(), run["task_id"]),
        )
