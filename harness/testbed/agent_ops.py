"""What an agent can do to the product, whichever door it comes through.

The runner's HTTP agent API (:mod:`agent_api`) and the MCP tool server a live
agent CLI uses (:mod:`mcp_tools`) both call these functions, so a comment,
a delivery or a status change means exactly the same thing (same checks,
same records, same once-only application by ``event_id``) for the scripted
agent and for a real one. Errors are ``HTTPException``: the HTTP door answers
them as they are, the MCP door turns their detail into a tool error.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Callable
from typing import Any

from fastapi import HTTPException

from harness.agents.metering.usage import Usage
from harness.agents.receipts import ids_in, read_detail

from . import budgets, faults, records
from .api import insert_task
from .controller import Controller
from .db import Database, now, record_activity
from .deliveries import DeliveryError, store
from .failpoints import failpoint
from .models import Ack, AgentRunContext, Comment, Delivery, ModelCallReport, ReceiptCreate, Spend, Task, TaskCreate


def ended(run: sqlite3.Row) -> HTTPException:
    """The 409 every request of a run that is no longer running gets (the runner stops on it)."""
    return HTTPException(status_code=409, detail=f"run {run['id']} is {run['status']}; it can no longer act")


def once(
    conn: sqlite3.Connection,
    run_id: int,
    event_id: str,
    kind: str,
    apply: Callable[[], dict[str, Any]],
    after_end: bool = False,
) -> dict[str, Any]:
    """Apply an agent event exactly once; replays return the stored response.

    Only a running run acts, unless ``after_end``: the completion of a model
    call the run made while it ran, which may arrive after a Stop ended it.
    """
    seen = conn.execute("SELECT run_id, kind, response_json FROM events WHERE event_id = ?", (event_id,)).fetchone()
    if seen is not None:
        if seen["run_id"] != run_id or seen["kind"] != kind:
            raise HTTPException(status_code=409, detail=f"event_id {event_id} was already used for another event")
        return json.loads(seen["response_json"])  # type: ignore[no-any-return]
    current = conn.execute("SELECT id, status FROM runs WHERE id = ?", (run_id,)).fetchone()
    if current["status"] != "running" and not after_end:
        raise ended(current)
    response = apply()
    conn.execute(
        "INSERT INTO events (event_id, run_id, kind, response_json, created_at) VALUES (?, ?, ?, ?, ?)",
        (event_id, run_id, kind, json.dumps(response), now()),
    )
    return response


def own_task(conn: sqlite3.Connection, run: sqlite3.Row, task_id: int) -> None:
    """A run may read its own task and that task's children (to wait on delegated work)."""
    row = conn.execute("SELECT parent_id FROM tasks WHERE id = ?", (task_id,)).fetchone()
    if row is None:
        raise records.not_found("task", task_id)
    if task_id != run["task_id"] and row["parent_id"] != run["task_id"]:
        raise HTTPException(status_code=403, detail=f"run {run['id']} may not read task {task_id}")


def agent_named(conn: sqlite3.Connection, name: str) -> sqlite3.Row:
    agent = conn.execute("SELECT * FROM agents WHERE name = ?", (name,)).fetchone()
    if agent is None:
        raise HTTPException(status_code=400, detail=f"assignee_name: no agent named {name!r}")
    return agent  # type: ignore[no-any-return]


def context(db: Database, run: sqlite3.Row, simulated: bool | None = None) -> AgentRunContext:
    return AgentRunContext(
        run_id=run["id"],
        task=records.task(db, run["task_id"]),
        agent=records.agent(db, run["agent_id"]),
        agents=records.agents(db),
        budget_remaining_cents=budget_remaining(db, run["agent_id"], simulated),
    )


def budget_remaining(db: Database, agent_id: int, simulated: bool | None = None) -> float | None:
    """What the tighter of the agent's and the company's budget leaves, in cents (None: no limit).

    Real and simulated spend are budgeted apart (a replay campaign never eats
    a real budget, nor the other way round); the runner's proxy learns which
    kind it is and the controller counts that kind: ``simulated=None`` takes
    the larger of the two, the safe figure before the kind is known.
    """
    company_row = db.one("SELECT budget_cents FROM company WHERE id = 1")
    agent_row = db.one("SELECT budget_cents FROM agents WHERE id = ?", agent_id)
    company_spend, agent_spend = records.spend(db), records.spend(db, "agent_id", agent_id)

    def spent(figures: Spend) -> float:
        if simulated is None:
            return max(figures.cents, figures.simulated_cents)
        return figures.simulated_cents if simulated else figures.cents

    limits = [company_row["budget_cents"] - spent(company_spend)] if company_row else []
    if agent_row is not None and agent_row["budget_cents"] is not None:
        limits.append(agent_row["budget_cents"] - spent(agent_spend))
    return max(0.0, min(limits)) if limits else None


CALL_FIGURES = "status, input_tokens, cached_input_tokens, cache_write_tokens, output_tokens, cost_cents"


def record_call(db: Database, run: sqlite3.Row, report: ModelCallReport) -> Ack:
    """Keep one metered model call against its run, task and agent (the runner's proxy reports each).

    A forwarded call is reported twice under one ``event_id``. Its admission
    (``in_flight``) comes before the proxy forwards anything and is kept with
    the input estimate as its charge; it is refused (409, the proxy then
    refuses the call) once the run has ended or a Stop was asked for, so no
    call starts after a Stop. Its completion replaces the estimate with what
    the proxy measured (real usage; an answered call without usage keeps its
    estimate; a failed one costs nothing), and is accepted after the run
    ended: the call was made while it ran and the model answered it. A
    completion that never comes (the runner was killed mid-call) leaves the
    estimate as the charge: a call cut by a Stop is never charged zero. A
    refusal (budget, unpriced model) is one report, as before.
    """
    with db.transaction() as conn:
        in_flight = conn.execute(  # completed or one-report calls fall through: their retries get the stored answer
            "SELECT id FROM model_calls WHERE event_id = ? AND run_id = ? AND in_flight = 1",
            (report.event_id, run["id"]),
        ).fetchone()
        if in_flight is not None and not report.in_flight:
            key = f"{report.event_id}:completed"
            ack = Ack(**once(conn, run["id"], key, "model_call_completed", lambda: _complete(conn, report), True))
        else:

            def insert() -> dict[str, Any]:
                if report.in_flight and _stopping(conn, run["id"]):
                    raise HTTPException(status_code=409, detail=f"run {run['id']} is stopping; it can no longer act")
                return failpoint("model-call.insert", _insert_call)(conn, run, report)

            ack = Ack(**once(conn, run["id"], report.event_id, "model_call", insert))
        if not report.refused:
            budgets.pause_if_spent(conn, run["agent_id"], report.simulated)
        return ack


def _stopping(conn: sqlite3.Connection, run_id: int) -> bool:
    row = conn.execute("SELECT stop_requested_at FROM runs WHERE id = ?", (run_id,)).fetchone()
    return bool(row["stop_requested_at"])


def _figures(report: ModelCallReport) -> tuple[int, int, int, int, int, float]:
    usage = report.usage or Usage()
    return (
        report.status,
        usage.input_tokens,
        usage.cached_input_tokens,
        usage.cache_write_tokens,
        usage.output_tokens,
        report.cost_cents,
    )


def _insert_call(conn: sqlite3.Connection, run: sqlite3.Row, report: ModelCallReport) -> dict[str, Any]:
    cursor = conn.execute(
        f"INSERT INTO model_calls (event_id, run_id, task_id, agent_id, provider, model, protocol, {CALL_FIGURES}, "
        "simulated, refused, price_table, in_flight, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            report.event_id,
            run["id"],
            run["task_id"],
            run["agent_id"],
            report.provider,
            report.model,
            report.protocol,
            *_figures(report),
            report.simulated,
            report.refused,
            report.price_table,
            report.in_flight,
            now(),
        ),
    )
    if report.refused:
        record_activity(conn, "model_call_refused", f"Run {run['id']}: {report.refused}", run["task_id"], run["id"])
    return {"id": cursor.lastrowid}


def _complete(conn: sqlite3.Connection, report: ModelCallReport) -> dict[str, Any]:
    """An admitted call's real figures replace its estimate (once: a retry gets the stored answer)."""
    assignments = ", ".join(f"{column.strip()} = ?" for column in CALL_FIGURES.split(","))
    conn.execute(
        f"UPDATE model_calls SET {assignments}, in_flight = 0 WHERE event_id = ?", (*_figures(report), report.event_id)
    )
    row = conn.execute("SELECT id FROM model_calls WHERE event_id = ?", (report.event_id,)).fetchone()
    return {"id": row["id"]}


def read_task(db: Database, run: sqlite3.Row, task_id: int) -> Task:
    own_task(db.connection(), run, task_id)
    return records.task(db, task_id)


def unacknowledged(conn: sqlite3.Connection, run_id: int, event_id: str) -> list[int]:
    """Messages this run consumed in an earlier read that no read receipt of it names: consumed, never seen.

    A read commits "consumed by this run" before its answer leaves; if the
    controller dies in between (or the answer is lost on the way), the
    messages are consumed but the agent never saw them. Every reader writes a
    receipt naming what it handed over (the MCP tool server right after the
    commit, the runners right after the answer, flushed before their next
    read), so a consumed message without one was never handed: the run's
    next read hands it again, whoever makes it.
    """
    consumed = conn.execute(
        "SELECT id FROM comments WHERE consumed_by_run_id = ? AND author_kind = 'user' "
        "AND (consume_event_id IS NULL OR consume_event_id != ?) ORDER BY id",
        (run_id, event_id),
    ).fetchall()
    receipts = conn.execute(
        "SELECT detail FROM receipts WHERE run_id = ? AND tool IN ('read_task', 'read_inbox')", (run_id,)
    ).fetchall()
    handed = {i for receipt in receipts for i in ids_in(receipt["detail"])}
    return [row["id"] for row in consumed if row["id"] not in handed]


def consume_inbox(controller: Controller, run: sqlite3.Row, event_id: str) -> list[Comment]:
    """Hand the run every unconsumed user message on its task and record that this run consumed them.

    A retry with the same ``event_id`` (the answer was lost) gets the same
    messages again from the stored event, so none is consumed unseen; a new
    read also hands again what the run consumed earlier but never
    acknowledged (:func:`unacknowledged`), so an MCP call cut by a controller
    restart loses nothing either.
    """
    db = controller.db
    first_read: list[int] = []

    def consume() -> dict[str, Any]:
        again = unacknowledged(conn, run["id"], event_id)
        conn.execute(
            "UPDATE comments SET consumed_by_run_id = ?, consumed_at = ?, consume_event_id = ? "
            "WHERE task_id = ? AND author_kind = 'user' AND consumed_by_run_id IS NULL",
            (run["id"], now(), event_id, run["task_id"]),
        )
        ids = [r["id"] for r in conn.execute("SELECT id FROM comments WHERE consume_event_id = ?", (event_id,))]
        if ids:
            record_activity(
                conn, "messages_consumed", f"Run {run['id']} read messages {ids}", run["task_id"], run["id"]
            )
        if again:
            record_activity(
                conn, "messages_handed_again", f"Run {run['id']} never saw messages {again}", run["task_id"], run["id"]
            )
        first_read.extend(ids)
        return {"ids": sorted({*again, *ids})}

    with db.transaction() as conn:
        ids = once(conn, run["id"], event_id, "inbox", consume)["ids"]
    faults.after_inbox_commit(first_read)
    handed = failpoint("inbox.handed", ids, db=db, run=run)
    return records.comments_by_ids(db, handed)


def record_read(db: Database, run: sqlite3.Row, tool: str, messages: list[Comment]) -> None:
    """The receipt of a read the product's own tool server handed to the agent (MCP ``read_task``).

    The runner numbers its receipts 0, 1, 2...; the tool server's take -1, -2... so both
    kinds sit in one ordered list without colliding.
    """
    detail = read_detail([m.id for m in messages])
    with db.transaction() as conn:
        lowest = conn.execute("SELECT MIN(seq) FROM receipts WHERE run_id = ?", (run["id"],)).fetchone()[0]
        seq = min(-1, (lowest or 0) - 1)
        conn.execute(
            "INSERT INTO receipts (id, run_id, seq, tool, target, ok, detail, created_at) VALUES (?, ?, ?, ?, ?, 1, ?, ?)",
            (f"tool-{uuid.uuid4().hex}", run["id"], seq, tool, f"task {run['task_id']}", detail, now()),
        )


def comment(db: Database, run: sqlite3.Row, event_id: str, body: str) -> Ack:
    def insert() -> dict[str, Any]:
        cursor = conn.execute(
            "INSERT INTO comments (task_id, author_kind, agent_id, run_id, body, created_at) VALUES (?, 'agent', ?, ?, ?, ?)",
            (run["task_id"], run["agent_id"], run["id"], body, now()),
        )
        comment_id = cursor.lastrowid
        failpoint("reply.stored", conn=conn, run=run, body=body)
        return {"id": comment_id}

    with db.transaction() as conn:
        return Ack(**once(conn, run["id"], event_id, "comment", insert))


def receipt(db: Database, run: sqlite3.Row, payload: ReceiptCreate) -> Ack:
    def insert() -> dict[str, Any]:
        if conn.execute("SELECT 1 FROM receipts WHERE run_id = ? AND seq = ?", (run["id"], payload.seq)).fetchone():
            raise HTTPException(status_code=409, detail=f"seq: receipt {payload.seq} already recorded with another id")
        conn.execute(
            "INSERT INTO receipts (id, run_id, seq, tool, target, ok, detail, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (payload.event_id, run["id"], payload.seq, payload.tool, payload.target, payload.ok, payload.detail, now()),
        )
        failpoint("receipt.stored", conn=conn, run=run)
        return {"id": payload.event_id}

    with db.transaction() as conn:
        return Ack(**once(conn, run["id"], payload.event_id, "receipt", insert))


def set_status(db: Database, run: sqlite3.Row, event_id: str, status: str) -> Ack:
    """A task is never Done while a run on it is active: an agent that declares its task done (and
    may go on talking for a while) has the status applied the moment its run succeeds."""

    def update() -> dict[str, Any]:
        if status == "done":
            conn.execute("UPDATE runs SET settle_status = ? WHERE id = ?", (status, run["id"]))
            summary = f"Task {run['task_id']} -> done when run {run['id']} ends"
        else:
            conn.execute("UPDATE tasks SET status = ?, updated_at = ? WHERE id = ?", (status, now(), run["task_id"]))
            summary = f"Task {run['task_id']} -> {status}"
        record_activity(conn, "task_status", summary, run["task_id"], run["id"])
        return {"id": run["task_id"]}

    with db.transaction() as conn:
        return Ack(**once(conn, run["id"], event_id, "status", update))


def create_child(db: Database, run: sqlite3.Row, event_id: str, title: str, body: str, assignee_name: str) -> Ack:
    """Delegate: a child task of the run's task, assigned to a named agent."""

    def insert() -> dict[str, Any]:
        assignee = failpoint("child.assignee", agent_named(conn, assignee_name), conn=conn, run=run)
        child = TaskCreate(title=title, body=body, assignee_id=assignee["id"], parent_id=run["task_id"])
        return {"id": insert_task(conn, child, created_by_run_id=run["id"])}

    with db.transaction() as conn:
        return Ack(**once(conn, run["id"], event_id, "child", insert))


def assign(db: Database, run: sqlite3.Row, event_id: str, assignee_name: str) -> Ack:
    """Hand the run's own task to another agent; the scheduler starts that agent on it."""

    def update() -> dict[str, Any]:
        assignee = agent_named(conn, assignee_name)
        conn.execute(
            "UPDATE tasks SET assignee_id = ?, wake = 1, wake_cause = 'handoff', status = 'todo', updated_at = ? WHERE id = ?",
            (assignee["id"], now(), run["task_id"]),
        )
        record_activity(
            conn, "task_assigned", f"Task {run['task_id']} handed to {assignee['name']}", run["task_id"], run["id"]
        )
        return {"id": run["task_id"]}

    with db.transaction() as conn:
        return Ack(**once(conn, run["id"], event_id, "assign", update))


def deliver(controller: Controller, run: sqlite3.Row, event_id: str, data: bytes) -> Delivery:
    """Store a workspace ZIP (content-addressed) as a new immutable delivery of the run's task."""
    try:
        digest, names = failpoint("delivery.store", store)(controller.data_dir, data)
    except DeliveryError as error:
        raise HTTPException(status_code=400, detail=f"file: {error}") from error

    def insert() -> dict[str, Any]:
        cursor = conn.execute(
            "INSERT INTO deliveries (task_id, run_id, sha256, size, files_json, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            (run["task_id"], run["id"], digest, len(data), json.dumps(names), now()),
        )
        record_activity(conn, "delivery", f"Delivery {cursor.lastrowid} ({digest[:12]})", run["task_id"], run["id"])
        return {"id": cursor.lastrowid}

    with controller.db.transaction() as conn:
        delivery_id = once(conn, run["id"], event_id, "delivery", insert)["id"]
    return records.delivery(controller.db, delivery_id)
