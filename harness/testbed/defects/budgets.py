"""Defects in budget pauses: a budget that stops nothing, a pause that leaves the run going, a cost page that
hides it, a raise that does not resume."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..models import Agent
from .registry import declarer

defect = declarer("budgets")


@defect("budget-not-enforced", at="budget.reached", summary="an agent spends past its budget and is never paused")
def never_reached(reached: bool, **_: Any) -> bool:
    return False


@defect(
    "budget-pauses-a-call-late",
    at="budget.reached",
    summary="an agent is paused for budget only once its spend has passed the budget: one more call is admitted"
    " after the spend reached it",
)
def one_call_late(reached: bool, *, spent: float, budget_cents: int, **_: Any) -> bool:
    return spent > budget_cents


@defect(
    "budget-pause-leaves-run-going",
    at="budget.stop-runs",
    summary="the agent is shown paused for budget, but its running run goes on making model calls",
)
def runs_go_on(ask_runs_to_stop: Callable[..., None], **_: Any) -> Callable[..., None]:
    return lambda *_args, **_kwargs: None


@defect(
    "cost-page-hides-pause",
    at="cost-page.agent",
    summary="the cost page shows an agent its budget paused as active",
)
def shown_active(agent: Agent, **_: Any) -> Agent:
    return agent.model_copy(update={"paused_reason": None})


@defect(
    "budget-raise-keeps-pause",
    at="budget.resume",
    summary="a budget raised above the agent's spend is saved, but the agent stays paused and its work never goes on",
)
def stays_paused(resume: Callable[..., None], **_: Any) -> Callable[..., None]:
    return lambda *_args, **_kwargs: None
