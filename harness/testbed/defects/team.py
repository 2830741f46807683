"""Defects in the team's controls: hires the board approves or rejects, and an agent's Pause, Resume and Terminate."""

from __future__ import annotations

import sqlite3
from typing import Any

from .registry import declarer

defect = declarer("team")


@defect(
    "hire-skips-approval",
    at="hire.approval-required",
    summary="a hire is created at once, active, though the company requires the board's approval for new agents",
)
def never_required(required: bool, **_: Any) -> bool:
    return False


@defect(
    "approval-creates-no-agent",
    at="hire-approval.creates-agent",
    summary="approving a hire records it approved, but no agent is created",
)
def creates_nothing(creates: bool, **_: Any) -> bool:
    return False


@defect(
    "rejected-hire-created",
    at="hire-approval.creates-agent",
    summary="rejecting a hire records it rejected, but creates the agent anyway",
)
def creates_anyway(creates: bool, **_: Any) -> bool:
    return True


@defect(
    "approvals-not-listed",
    at="approvals-page.items",
    summary="the start page's Approvals lists nothing, though hires wait for the board",
)
def lists_nothing(items: list[Any], **_: Any) -> list[Any]:
    return []


@defect(
    "pause-leaves-run-going",
    at="agent.control.stops-runs",
    summary="Pause marks the agent paused but leaves its run in progress going to its end",
)
def stops_nothing(run_ids: list[int], *, action: str, **_: Any) -> list[int]:
    return [] if action == "pause" else run_ids


@defect(
    "paused-agent-starts",
    at="run.agent-may-work",
    summary="a paused agent is still given runs: a message left for it starts one at once",
)
def paused_works(may: bool, *, agent: sqlite3.Row, **_: Any) -> bool:
    return may or agent["status"] == "paused"


@defect(
    "resumed-agent-idle",
    at="run.agent-may-work",
    summary="an agent resumed after a pause is shown active but never given a run again",
)
def resumed_idle(may: bool, *, conn: sqlite3.Connection, agent: sqlite3.Row, **_: Any) -> bool:
    paused_once = conn.execute(
        "SELECT 1 FROM activity WHERE kind = 'agent_paused' AND agent_id = ? LIMIT 1", (agent["id"],)
    ).fetchone()
    return may and paused_once is None


@defect(
    "terminated-agent-assignable",
    at="task.assignee-takes-work",
    summary="a task for a terminated agent is accepted (and waits forever) instead of refused",
)
def takes_work(takes: bool, **_: Any) -> bool:
    return True


@defect(
    "agent-controls-ignored",
    at="agent-page.controls",
    summary="the agent page's Pause, Resume and Terminate buttons answer without doing anything",
)
def ignored(control: Any, **_: Any) -> Any:
    return lambda *_args, **_kwargs: None
