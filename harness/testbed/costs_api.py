"""The cost page: what each agent spent against its budget, which agents a budget paused, and the budget form.

A person sees here that an agent stopped because its budget ran out, and
raises the budget to let it go on (:func:`budgets.set_agent_budget`).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from pydantic import ValidationError

from . import budgets, records
from .api import PathId, controller_of
from .failpoints import failpoint
from .models import BudgetUpdate
from .origin import same_origin_required
from .web import templates

pages = APIRouter(include_in_schema=False, dependencies=[Depends(same_origin_required)])
ROUTERS = (pages,)


def render_costs(request: Request, error: str | None = None) -> HTMLResponse:
    db = controller_of(request).db
    shown = [failpoint("cost-page.agent", agent) for agent in records.agents(db)]
    context = {"company": records.company(db), "agents": shown, "error": error}
    return templates.TemplateResponse(request, "costs.html", context, status_code=422 if error else 200)


@pages.get("/costs", response_class=HTMLResponse)
def costs_page(request: Request) -> HTMLResponse:
    return render_costs(request)


@pages.post("/costs/agents/{agent_id}/budget", response_model=None)
def set_budget_form(
    agent_id: PathId, request: Request, budget_cents: Annotated[str, Form()] = ""
) -> HTMLResponse | RedirectResponse:
    """The budget form of one agent's row (empty: no budget of its own)."""
    try:
        payload = BudgetUpdate.model_validate({"budget_cents": budget_cents or None})
    except ValidationError as error:
        return render_costs(request, "; ".join(f"{e['loc'][0]}: {e['msg']}" for e in error.errors()))
    budgets.set_agent_budget(controller_of(request).db, agent_id, payload.budget_cents)
    return RedirectResponse("/costs", status_code=303)
