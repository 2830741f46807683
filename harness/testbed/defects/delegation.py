"""Defects in hiring and delegation: whom an agent reports to, whom a child task goes to and is run for."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any, TypeVar

from ..db import Database, now
from ..models import AgentCreate, Run
from .registry import declarer

defect = declarer("delegation")
T = TypeVar("T")


@defect(
    "child-assigned-to-lead",
    at="child.assignee",
    summary="a delegated child task is assigned to the delegating agent instead of the named teammate",
)
def assigned_to_lead(named: sqlite3.Row, *, conn: sqlite3.Connection, run: sqlite3.Row, **_: Any) -> sqlite3.Row:
    return conn.execute("SELECT * FROM agents WHERE id = ?", (run["agent_id"],)).fetchone()  # type: ignore[no-any-return]


@defect(
    "delegation-hires-copy",
    at="child.assignee",
    summary="delegating to a teammate who already has a task hires a copy of them and assigns the child to the copy",
)
def copy_when_busy(named: sqlite3.Row, *, conn: sqlite3.Connection, **_: Any) -> sqlite3.Row:
    if conn.execute("SELECT 1 FROM tasks WHERE assignee_id = ?", (named["id"],)).fetchone() is None:
        return named
    number = 2
    while conn.execute("SELECT 1 FROM agents WHERE name = ?", (f"{named['name']} {number}",)).fetchone():
        number += 1
    cursor = conn.execute(  # same role, manager, runner and connections, under the next free name
        "INSERT INTO agents (name, role, reports_to, adapter, model, budget_cents, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            f"{named['name']} {number}",
            named["role"],
            named["reports_to"],
            named["adapter"],
            named["model"],
            None,
            now(),
        ),
    )
    conn.execute(
        "INSERT INTO connection_agents (connection_id, agent_id) SELECT connection_id, ? FROM connection_agents"
        " WHERE agent_id = ?",
        (cursor.lastrowid, named["id"]),
    )
    return conn.execute("SELECT * FROM agents WHERE id = ?", (cursor.lastrowid,)).fetchone()  # type: ignore[no-any-return]


@defect(
    "child-run-by-delegator",
    at="run.agent",
    summary="a delegated child task stays assigned to the teammate, but its runs are started for the delegating agent",
)
def delegator_runs(assignee: sqlite3.Row, *, conn: sqlite3.Connection, task_id: int, **_: Any) -> sqlite3.Row:
    delegator = conn.execute(
        "SELECT a.* FROM tasks t JOIN runs r ON r.id = t.created_by_run_id JOIN agents a ON a.id = r.agent_id"
        " WHERE t.id = ?",
        (task_id,),
    ).fetchone()
    return delegator if delegator is not None else assignee  # type: ignore[no-any-return]


@defect("reports-to-ignored", at="hire.reports-to", summary="hiring an agent drops the manager it reports to")
def no_manager(reports_to: int | None, **_: Any) -> int | None:
    return None


@defect(
    "hire-stored-twice",
    at="hire-form.create",
    summary="one press of the hire form stores the agent twice (the copy under the name with a 2 added)",
)
def double_submit(create: Callable[[AgentCreate, Any], Any], **_: Any) -> Callable[[AgentCreate, Any], Any]:
    def twice(hired: AgentCreate, request: Any) -> Any:
        made = create(hired, request)
        create(hired.model_copy(update={"name": f"{hired.name} 2"}), request)
        return made

    return twice


@defect(
    "hire-form-drops-manager",
    at="hire-form.fields",
    summary="the hire form drops the manager chosen under Reports to (the API keeps it): the agent reports to nobody",
)
def form_drops_manager(fields: dict[str, Any], **_: Any) -> dict[str, Any]:
    return {**fields, "reports_to": None}


@defect(
    "hire-form-prefixes-connections",
    at="hire-form.fields",
    summary="the hire form's connection boxes send a prefixed value (connection-5, not 5), which the API refuses",
)
def prefixed_connections(fields: dict[str, Any], **_: Any) -> dict[str, Any]:
    return {**fields, "connection_ids": [f"connection-{ident}" for ident in fields["connection_ids"]]}


@defect(
    "hire-runner-ignored",
    at="hire-form.fields",
    summary="the hire form stores the first runner of its list instead of the one chosen",
)
def first_runner(fields: dict[str, Any], *, runners: list[str], **_: Any) -> dict[str, Any]:
    return {**fields, "adapter": runners[0]}


@defect(
    "hire-connections-dropped",
    at="hire-form.fields",
    summary="the hire form drops the connections ticked for the new agent: it is bound to none",
)
def no_connections(fields: dict[str, Any], **_: Any) -> dict[str, Any]:
    return {**fields, "connection_ids": []}


@defect(
    "hire-form-lists-no-managers",
    at="hire-form.managers",
    summary="the hire form's Reports to list offers only Nobody, so no manager can be chosen",
)
def no_managers(agents: list[T], **_: Any) -> list[T]:
    return []


@defect(
    "child-link-opens-parent",
    at="task-page.child-link",
    summary="a child task's link on its parent's page opens the parent again",
)
def links_parent(url: str, *, parent_id: int, **_: Any) -> str:
    return f"/tasks/{parent_id}"


@defect(
    "parent-run-recorded-as-teammate",
    at="task.runs",
    summary="the lead's runs on a parent task are filed under the teammate its child belongs to",
)
def filed_under_teammate(runs: list[Run], *, db: Database, parent_id: int | None, **_: Any) -> list[Run]:
    if parent_id is not None or not runs:
        return runs
    teammate = db.one(
        "SELECT assignee_id FROM tasks WHERE parent_id = ? AND assignee_id IS NOT NULL LIMIT 1", runs[0].task_id
    )
    if teammate is None:
        return runs
    # a join on the child's assignee files the parent's runs under the teammate
    return [run.model_copy(update={"agent_id": teammate["assignee_id"]}) for run in runs]
