"""Rules over a hire the board decides on (stories hire-approval and hire-rejected), for any product.

Judged by what the product stored, read back through its API: the approvals
it keeps and the agents it lists. "Can take work" means an agent listed as
``active``; a product may list a hire waiting for approval (``pending_approval``)
or a rejected one it keeps ``terminated``, as long as neither can take work.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.core.product_records import Agent, HireApproval
from harness.core.records import CheckRecord

HIRE_WAITS = "approval.hire-waits"
HIRE_APPROVED = "approval.hire-approved"
REJECTED_NOTHING_CREATED = "approval.rejected-nothing-created"


def _listed(agents: Sequence[Agent], name: str) -> str:
    named = [f"{agent.id} ({agent.status})" for agent in agents if agent.name == name]
    return ", ".join(named) or "none"


def hire_waits(
    requested: HireApproval | None, approvals: Sequence[HireApproval], team: Sequence[Agent], name: str
) -> CheckRecord:
    """The hire waits for the board: the request answered with an approval, the only one pending for ``name``,
    and no agent of that name can take work yet."""
    pending = [a for a in approvals if a.name == name and a.status == "pending"]
    working = [a for a in team if a.name == name and a.status == "active"]
    passed = requested is not None and [str(a.id) for a in pending] == [str(requested.id)] and not working
    detail = (
        "the hire request made no approval (the product hired at once)" if requested is None else ""
    ) or f"{len(pending)} approval(s) pending for {name!r}; agents named so: {_listed(team, name)}"
    return CheckRecord(id=HIRE_WAITS, passed=passed, detail=detail)


def hire_approved(decided: HireApproval, team: Sequence[Agent], name: str) -> CheckRecord:
    """The approval is recorded approved, and exactly one agent of that name exists, active: the approval's agent."""
    named = [a for a in team if a.name == name]
    passed = (
        decided.status == "approved"
        and len(named) == 1
        and named[0].status == "active"
        and (decided.agent_id is None or str(decided.agent_id) == str(named[0].id))
    )
    detail = f"approval {decided.id} is {decided.status} (agent {decided.agent_id}); agents named {name!r}: " + _listed(
        team, name
    )
    return CheckRecord(id=HIRE_APPROVED, passed=passed, detail=detail)


def rejected_nothing_created(
    decided: HireApproval, team_before: Sequence[Agent], team: Sequence[Agent], name: str
) -> CheckRecord:
    """The approval is recorded rejected, no agent of that name is left that could ever work (none listed, or
    only terminated ones), and nobody else joined the team meanwhile."""
    before = {str(a.id) for a in team_before}
    kept = [a for a in team if a.status != "terminated" and (a.name == name or str(a.id) not in before)]
    passed = decided.status == "rejected" and not kept
    detail = f"approval {decided.id} is {decided.status}; agents named {name!r}: {_listed(team, name)}" + (
        f"; still on the team: {', '.join(f'{a.id} {a.name!r} ({a.status})' for a in kept)}" if kept else ""
    )
    return CheckRecord(id=REJECTED_NOTHING_CREATED, passed=passed, detail=detail)
