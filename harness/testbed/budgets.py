"""Budget pauses: an agent whose metered spend reaches its budget is paused until a person raises it.

Every metered model call is recorded against its run and agent
(:func:`agent_ops.record_call`). When a recorded call (an admission's
estimate, or a completion's measure) brings the agent's spend (of the
call's kind: simulated replay cents and real cents are budgeted apart) to
its own budget, the agent is paused for budget in the same transaction: its
running runs are asked to stop for budget, so no further call of theirs is
admitted (the scheduler then stops them as Stop does, and records each
``cancelled`` with ``budget_paused``), and none of its tasks gets a new run. Raising the budget above what
the agent spent resumes it and wakes every task a budget pause cut short:
the work goes on where it stopped.
"""

from __future__ import annotations

import sqlite3

from . import records
from .db import Database, now, record_activity
from .failpoints import failpoint
from .models import Agent

BUDGET = "budget"
PAUSED_ERROR = "budget_paused"


def _spent(conn: sqlite3.Connection, agent_id: int, simulated: bool) -> float:
    row = conn.execute(
        "SELECT COALESCE(SUM(cost_cents), 0) AS s FROM model_calls WHERE agent_id = ? AND simulated = ? "
        "AND refused IS NULL",
        (agent_id, simulated),
    ).fetchone()
    return float(row["s"])


def pause_if_spent(conn: sqlite3.Connection, agent_id: int, simulated: bool) -> bool:
    """Pause the agent for budget once its spend of this kind reached its budget; whether it is paused now."""
    agent = conn.execute("SELECT budget_cents, paused_reason FROM agents WHERE id = ?", (agent_id,)).fetchone()
    if agent["paused_reason"] is not None:
        return True
    spent = _spent(conn, agent_id, simulated)
    if agent["budget_cents"] is None or not failpoint(
        "budget.reached", spent >= agent["budget_cents"], spent=spent, budget_cents=agent["budget_cents"]
    ):
        return False
    conn.execute("UPDATE agents SET paused_reason = ?, paused_at = ? WHERE id = ?", (BUDGET, now(), agent_id))
    failpoint("budget.stop-runs", _ask_runs_to_stop)(conn, agent_id)
    record_activity(
        conn,
        "agent_paused",
        f"Agent {agent_id} paused: spent {spent:.2f} of its {agent['budget_cents']} cent budget",
        agent_id=agent_id,
    )
    return True


def _ask_runs_to_stop(conn: sqlite3.Connection, agent_id: int) -> None:
    conn.execute(
        "UPDATE runs SET stop_requested_at = ?, stop_cause = ? WHERE agent_id = ? AND status = 'running' "
        "AND stop_requested_at IS NULL",
        (now(), BUDGET, agent_id),
    )


def runs_to_stop(db: Database) -> list[int]:
    """Running runs a budget pause asked to stop, whose processes the monitor has yet to stop."""
    rows = db.all("SELECT id FROM runs WHERE status = 'running' AND stop_cause = ? ORDER BY id", BUDGET)
    return [row["id"] for row in rows]


def set_agent_budget(db: Database, agent_id: int, cents: int | None) -> Agent:
    """An agent's own budget (None: only the company's applies); one above its spend resumes a budget pause."""
    with db.transaction() as conn:
        if conn.execute("UPDATE agents SET budget_cents = ? WHERE id = ?", (cents, agent_id)).rowcount == 0:
            raise records.not_found("agent", agent_id)
        record_activity(conn, "budget", f"Agent {agent_id} budget set to {cents} cents", agent_id=agent_id)
        row = conn.execute("SELECT paused_reason FROM agents WHERE id = ?", (agent_id,)).fetchone()
        spent = max(_spent(conn, agent_id, True), _spent(conn, agent_id, False))
        if row["paused_reason"] == BUDGET and (cents is None or spent < cents):
            failpoint("budget.resume", _resume)(conn, agent_id)
    return records.agent(db, agent_id)


def _resume(conn: sqlite3.Connection, agent_id: int) -> None:
    """The agent acts again, and every task of its that a budget pause cut short is woken."""
    conn.execute("UPDATE agents SET paused_reason = NULL, paused_at = NULL WHERE id = ?", (agent_id,))
    conn.execute(
        "UPDATE tasks SET wake = 1, wake_cause = 'resumed' WHERE assignee_id = ? AND status NOT IN ('done', "
        "'cancelled') AND (SELECT error_code FROM runs r WHERE r.task_id = tasks.id ORDER BY r.id DESC LIMIT 1) = ?",
        (agent_id, PAUSED_ERROR),
    )
    record_activity(conn, "agent_resumed", f"Agent {agent_id} resumed: its budget was raised", agent_id=agent_id)
