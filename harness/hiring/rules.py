"""Rules over a hire and its reuse (story hire-reuse): plain agents, connections and tasks, for any product.

A hire is judged by what the product stored, read back through its API:
who is new on the team, whom they report to, the runner they work on and
the connections they may use, each compared with the lead's. Reuse is
judged by the child tasks: each went to the agent hired at the start, that
agent ran it itself, and nobody else was hired on the way.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.core.product_records import Agent, Connection, RecordId, Task
from harness.core.records import CheckRecord

ONE_AGENT = "hire.one-agent"
REPORTS_TO_LEAD = "hire.reports-to-lead"
SAME_RUNNER = "hire.same-runner-as-lead"
SAME_CONNECTIONS = "hire.same-connections-as-lead"
FIRST_CHILD = "reuse.first-child-to-hire"
SAME_AGENT_AGAIN = "reuse.same-agent-again"


def one_agent(before: Sequence[Agent], after: Sequence[Agent], name: str) -> CheckRecord:
    """The hire added exactly one agent, named as the person typed it, and the team has one agent of that name."""
    known = {str(agent.id) for agent in before}
    new = [agent for agent in after if str(agent.id) not in known]
    named = [agent for agent in after if agent.name == name]
    passed = len(new) == 1 and new[0].name == name and len(named) == 1
    listed = ", ".join(f"{agent.id} {agent.name!r}" for agent in new) or "none"
    detail = f"{len(new)} new agent(s) ({listed}); {len(named)} named {name!r}"
    return CheckRecord(id=ONE_AGENT, passed=passed, detail=detail)


def reports_to_lead(hired: Agent, lead: Agent) -> CheckRecord:
    passed = hired.reports_to == lead.id
    detail = f"{hired.name} reports to agent {hired.reports_to}; the lead is agent {lead.id}"
    return CheckRecord(id=REPORTS_TO_LEAD, passed=passed, detail=detail)


def same_runner(hired: Agent, lead: Agent) -> CheckRecord:
    """The hire works on the lead's runner: the same adapter and the same model."""
    passed = (hired.adapter, hired.model) == (lead.adapter, lead.model)
    detail = f"{hired.name} on {hired.adapter}/{hired.model}; the lead on {lead.adapter}/{lead.model}"
    return CheckRecord(id=SAME_RUNNER, passed=passed, detail=detail)


def bound_to(agent_id: RecordId, connections: Sequence[Connection]) -> list[str]:
    """The ids of the connections an agent may use, as text (records keep ids opaque)."""
    return sorted(str(c.id) for c in connections if str(agent_id) in {str(a) for a in c.agent_ids})


def same_connections(hired: Agent, lead: Agent, connections: Sequence[Connection]) -> CheckRecord:
    """The hire may use exactly the lead's (encrypted) connections, and the lead has at least one."""
    mine, leads = bound_to(hired.id, connections), bound_to(lead.id, connections)
    passed = bool(leads) and mine == leads
    detail = f"{hired.name} bound to connections {mine or 'none'}; the lead to {leads or 'none'}"
    return CheckRecord(id=SAME_CONNECTIONS, passed=passed, detail=detail)


def ran_child(
    check_id: str, parent: Task, children: Sequence[Task], hired: Agent, model_calls_expected: bool
) -> CheckRecord:
    """One child task of ``parent``, assigned to the hire, which ran it to success in a runner of its own.

    Where the hire's runner calls a model, the run must also have metered
    model calls: a run that spent nothing did not really work.
    """
    mine = [c for c in children if c.assignee_id == hired.id]
    if len(children) != 1 or len(mine) != 1:
        assignees = sorted({str(c.assignee_name) for c in children})
        return CheckRecord(
            id=check_id,
            passed=False,
            detail=f"task {parent.id} has {len(children)} child task(s) (assigned to {assignees or 'nobody'});"
            f" {len(mine)} to {hired.name} (agent {hired.id})",
        )
    child = mine[0]
    runs = [r for r in child.runs if r.agent_id == hired.id and r.status == "succeeded" and r.identity.pid]
    worked = [r for r in runs if r.spend.calls > 0 or not model_calls_expected]
    on_parent = [r.id for r in parent.runs if r.agent_id == hired.id]
    passed = bool(worked) and not on_parent
    detail = (
        f"child task {child.id} assigned to {hired.name} (agent {hired.id}): {len(runs)} succeeded run(s) of its own"
        + (f", {sum(r.spend.calls for r in runs)} model call(s)" if model_calls_expected else "")
        + (f"; it also ran on the parent (runs {on_parent})" if on_parent else "")
    )
    return CheckRecord(id=check_id, passed=passed, detail=detail)


def same_agent_again(
    parent: Task,
    children: Sequence[Task],
    hired: Agent,
    team_after_hire: Sequence[Agent],
    team_now: Sequence[Agent],
    model_calls_expected: bool,
) -> CheckRecord:
    """The second piece of work went to the same agent id, which ran it, and nobody was hired since the first hire."""
    ran = ran_child(SAME_AGENT_AGAIN, parent, children, hired, model_calls_expected)
    known = {str(agent.id) for agent in team_after_hire}
    hired_since = [f"{agent.id} {agent.name!r}" for agent in team_now if str(agent.id) not in known]
    passed = ran.passed and not hired_since
    detail = ran.detail + (f"; hired since: {', '.join(hired_since)}" if hired_since else "; nobody hired since")
    return CheckRecord(id=SAME_AGENT_AGAIN, passed=passed, detail=detail)
