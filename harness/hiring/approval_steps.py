"""A hire the board decides on, in a person's vocabulary: what hire-approval and hire-rejected do and require.

The company is set to require the board's approval for new agents, and a
hire is asked for through the product's hire API (the way a lead agent or a
team's script asks), for a teammate set up like the lead. The person then
finds it waiting in the product's Approvals and approves or rejects it in the
browser. What the product stored is read back and judged by
:mod:`harness.hiring.approval_rules`; a rule that fails ends the story under
its own check id.
"""

from __future__ import annotations

from typing import cast

from pydantic import BaseModel

from harness.core.product_records import Agent, HireApproval
from harness.hiring import approval_rules as rules
from harness.judging.observations import judge
from harness.products.base import ApprovalsDriver, ApprovalsView, TeamApi
from harness.running.journey import Journey


class WaitingHire(BaseModel):
    """A hire waiting in Approvals: the approval, and the team as it was before the hire was asked for."""

    name: str
    approval: HireApproval
    team_before: list[Agent]


def team_api(journey: Journey) -> TeamApi:
    return cast(TeamApi, journey.api)


def ask_for_hire(journey: Journey, name: str, role: str) -> WaitingHire:
    """Require approval for new agents, ask for a hire like the lead, and require it to wait in Approvals."""
    api, lead = team_api(journey), journey.lead
    api.require_hire_approval(True)
    journey.evidence.note("hire approval", "the company requires the board's approval for new agents")
    before = api.agents()
    requested = api.request_hire(name, role, reports_to=lead.id, adapter=lead.adapter, model=lead.model)
    journey.evidence.note("hire requested", f"{name} ({role}), reporting to {lead.name}, on {lead.adapter}")
    approvals, team = api.hire_approvals(), api.agents()
    kept = journey.evidence.snapshot("hire-requested", {"requested": requested, "approvals": approvals, "team": team})
    journey.require(judge(rules.hire_waits, requested, approvals, team, name), "hire waits for approval", kept)
    assert requested is not None  # hire_waits passed
    page = _approvals(journey)
    with journey.expecting("approval-shown", f"Approvals listing the hire of {name}"):
        page.open().wait_for(requested, timeout=journey.shown_budget())
    journey.screenshot("hire waiting for approval")
    return WaitingHire(name=name, approval=requested, team_before=before)


def approve_hire(journey: Journey, hire: WaitingHire) -> Agent:
    """Press Approve in Approvals: the hire must then be the one active agent of its name (returned)."""
    decided, team, kept = _decide(journey, hire, approve=True)
    journey.require(judge(rules.hire_approved, decided, team, hire.name), "approved hire on the team", kept)
    return next(agent for agent in team if agent.name == hire.name)


def reject_hire(journey: Journey, hire: WaitingHire) -> None:
    """Press Reject in Approvals: nothing that could work may be left of the hire."""
    decided, team, kept = _decide(journey, hire, approve=False)
    check = rules.rejected_nothing_created(decided, hire.team_before, team, hire.name)
    journey.require(check, "rejected hire created nothing", kept)


def _decide(journey: Journey, hire: WaitingHire, approve: bool) -> tuple[HireApproval, list[Agent], str]:
    """Press the button; the approval and the team as the product then stores them, and where they are kept."""
    page = _approvals(journey)
    verb = "approving" if approve else "rejecting"
    with journey.expecting("approval-shown", f"{verb} the hire of {hire.name} in Approvals"):
        page.decide(hire.approval, approve=approve, timeout=journey.shown_budget())
    journey.evidence.note("hire decided", f"{verb} {hire.name} in the browser")
    api = team_api(journey)
    decided = next(a for a in api.hire_approvals() if str(a.id) == str(hire.approval.id))
    team = api.agents()
    return decided, team, journey.evidence.snapshot("hire-decided", {"approval": decided, "team": team})


def _approvals(journey: Journey) -> ApprovalsView:
    return cast(ApprovalsDriver, journey.driver).approvals_page(journey.page, journey.instance.base_url)
