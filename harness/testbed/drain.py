"""A graceful drain: a shutdown an operator asked to drain stops the running runs, records them interrupted and queues
their work again for the next controller.

A plain SIGTERM stops only the controller: its runners keep working and the
next controller re-adopts them. An operator who wants the runs to stop with
it (the machine is going away) asks for a drain first (``POST
/api/controller/drain``); the shutdown that follows then, for each running
run, ends its runner (process group or sandbox), records the run ``failed``
with ``interrupted_by_shutdown`` (never a success it did not finish), and
queues a run of the same task and agent (cause ``recovery``) in the same
transaction, which the next controller starts. Messages the interrupted run
had not read stay unread, so the retry is handed them.
"""

from __future__ import annotations

import logging
import sqlite3

from .controller import Controller, end_run_in
from .db import now, record_activity
from .failpoints import failpoint
from .sandbox import leases
from .supervisor import Identity

SHUTDOWN_ERROR = "interrupted_by_shutdown"
INTERRUPTED = {"reason": "interrupted by graceful server shutdown (SIGTERM); retry queued for the next controller"}

log = logging.getLogger("testbed.drain")


def drain(controller: Controller) -> list[int]:
    """Drain every running run (see the module); returns the retries queued, by id."""
    retries: list[int] = []
    for row in controller.db.all("SELECT * FROM runs WHERE status = 'running' ORDER BY id"):
        retry = _drain_run(controller, row)
        if retry is not None:
            retries.append(retry)
    if controller.sandbox is not None:
        controller.sandbox.release_ended()  # the drained runs' workspaces come back before the controller goes
    return retries


def _drain_run(controller: Controller, row: sqlite3.Row) -> int | None:
    """Stop one run's runner, then record it interrupted and queue its retry, in one transaction."""
    gone = _stop_runner(controller, row)
    status, error_code = failpoint("drain.outcome", ("failed", SHUTDOWN_ERROR))
    with controller.db.transaction() as conn:
        if not end_run_in(conn, row["id"], status, error_code, INTERRUPTED, group_gone=gone):
            return None  # it ended on its own first
        failpoint("drain.interrupted", conn=conn, run=row, data_dir=controller.data_dir)
        retry = failpoint("drain.queue-retry", queue_retry)(conn, row)
    log.info("run %s drained (%s); retry %s queued", row["id"], status, retry)
    return retry


def _stop_runner(controller: Controller, row: sqlite3.Row) -> bool:
    """End the run's runner as Stop does: its sandbox, else its process group; True once it is gone."""
    lease = leases.lease_of(controller.db.connection(), row["id"]) if controller.sandbox is not None else None
    if lease is not None and controller.sandbox is not None:
        return bool(controller.sandbox.stop(lease))
    if row["pid"] is None or row["process_start_time"] is None:
        return True  # its runner never started
    return controller.supervisor.stop_group(Identity(pid=row["pid"], start_time=row["process_start_time"]))


def queue_retry(conn: sqlite3.Connection, run: sqlite3.Row) -> int | None:
    """A run of the drained run's task for the same agent, queued for the next controller (cause ``recovery``)."""
    cursor = conn.execute(
        "INSERT INTO runs (task_id, agent_id, adapter, model, status, queued_at, cause) "
        "VALUES (?, ?, ?, ?, 'queued', ?, 'recovery')",
        (run["task_id"], run["agent_id"], run["adapter"], run["model"], now()),
    )
    retry = int(cursor.lastrowid or 0)
    record_activity(
        conn, "run_queued", f"Run {retry} queued: retry of run {run['id']}, drained by shutdown", run["task_id"], retry
    )
    return retry
