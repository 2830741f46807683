"""The team's doors: hire requests and their approvals, an agent's Pause, Resume and Terminate, and their pages.

Kept apart from :mod:`api` and :mod:`web` so the feature reads as one; each
route goes through :mod:`team`. The board's Approvals sit on the start page,
an agent's controls on its own page (``/agents/{id}``).
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from . import records, team
from .api import PathId, controller_of
from .failpoints import failpoint
from .models import Agent, AgentCreate, Company
from .origin import same_origin_if_browser, same_origin_required
from .team import Control, HireApproval, HireRequested, HireSetting
from .web import templates

public = APIRouter(prefix="/api", tags=["team"], dependencies=[Depends(same_origin_if_browser)])
pages = APIRouter(include_in_schema=False, dependencies=[Depends(same_origin_required)])
ROUTERS = (public, pages)


@public.put("/company/hire-approval")
def set_hire_approval(payload: HireSetting, request: Request) -> Company:
    """Whether a new agent waits for the board's approval (``POST /api/hires``)."""
    db = controller_of(request).db
    team.require_approval(db, payload.required)
    return records.company(db)


@public.post("/hires", status_code=201)
def request_hire(payload: AgentCreate, request: Request) -> HireRequested:
    """Hire an agent: created at once, or a request that waits in Approvals when the company requires it."""
    return team.request_hire(controller_of(request), payload)


@public.get("/approvals")
def list_approvals(request: Request) -> list[HireApproval]:
    return team.approvals(controller_of(request).db)


@public.get("/approvals/{approval_id}")
def get_approval(approval_id: PathId, request: Request) -> HireApproval:
    return team.approval(controller_of(request).db, approval_id)


@public.post("/approvals/{approval_id}/approve")
def approve(approval_id: PathId, request: Request) -> HireApproval:
    return team.decide(controller_of(request), approval_id, approve=True)


@public.post("/approvals/{approval_id}/reject")
def reject(approval_id: PathId, request: Request) -> HireApproval:
    return team.decide(controller_of(request), approval_id, approve=False)


@public.post("/agents/{agent_id}/{action}")
def control_agent(agent_id: PathId, action: Control, request: Request) -> Agent:
    """``pause``, ``resume`` or ``terminate`` an agent; pausing and terminating stop its runs in progress."""
    return team.control(controller_of(request), agent_id, action)


@pages.post("/approvals/{approval_id}/{decision}")
def decision_form(approval_id: PathId, decision: str, request: Request) -> RedirectResponse:
    """The Approve and Reject buttons of the start page's Approvals."""
    if decision in ("approve", "reject") and team.approval(controller_of(request).db, approval_id).status == "pending":
        team.decide(controller_of(request), approval_id, approve=decision == "approve")
    return RedirectResponse("/#approvals-heading", status_code=303)


@pages.get("/agents/{agent_id}", response_class=HTMLResponse)
def agent_page(agent_id: PathId, request: Request) -> HTMLResponse:
    db = controller_of(request).db
    agent = records.agent(db, agent_id)
    tasks = [task for task in records.tasks(db) if task.assignee_id == agent_id]
    return templates.TemplateResponse(request, "agent.html", {"agent": agent, "tasks": tasks})


@pages.post("/agents/{agent_id}/{action}")
def control_form(agent_id: PathId, action: Control, request: Request) -> RedirectResponse:
    """The agent page's Pause, Resume and Terminate buttons."""
    if records.agent(controller_of(request).db, agent_id).status in team.CONTROLS[action][0]:
        failpoint("agent-page.controls", team.control)(controller_of(request), agent_id, action)
    return RedirectResponse(f"/agents/{agent_id}", status_code=303)
