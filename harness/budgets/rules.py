"""Rules over a budget that ran out: what the product recorded and showed, for any product.

The product must pause the agent when its spend reaches its budget (and
admit no call once it has: the spend may pass the budget by the one call
that reached it, never by more), end the run that was going as paused for
budget, make no model call and start no run
while the agent stays paused, show the pause on its cost page, and take the
work up again once the budget is raised.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.core.product_records import BUDGET_PAUSED, Agent, Run, ShownBudget
from harness.core.records import CheckRecord

RUN_PAUSED = "budget.run-paused"
NO_CALL_WHILE_PAUSED = "budget.no-call-while-paused"
COST_PAGE_SHOWS_PAUSE = "budget.cost-page-shows-pause"
RESUMED_AFTER_RAISE = "budget.resumed-after-raise"


def never_paused(agent: Agent, budget_cents: int) -> CheckRecord:
    """The work ended while the agent was never paused: its budget stopped nothing."""
    detail = (
        f"{agent.name} spent {agent.spend.cents + agent.spend.simulated_cents:.2f} of a {budget_cents} cent budget"
        f" in {agent.spend.calls} call(s) and was never paused"
    )
    return CheckRecord(id=RUN_PAUSED, passed=False, detail=detail)


def admitted_past_limit(agent: Agent, budget_cents: int, call_cents: float | None) -> list[str]:
    """A call admitted once the spend had reached the budget: the spend, less the one call that reached it, is
    still at the budget or above (``call_cents``: the most one call of the story's script costs; None where the
    script's calls have no fixed price, so no upper bound can be drawn)."""
    spent = agent.spend.cents + agent.spend.simulated_cents
    if call_cents is None or spent - call_cents < budget_cents:
        return []
    return [
        f"{agent.name} spent {spent:.2f} of a {budget_cents} cent budget in calls of at most {call_cents:g} cents:"
        f" at least {int((spent - budget_cents) // call_cents)} call(s) admitted once the budget was reached"
    ]


def run_paused(
    run: Run | None, agent: Agent, spent_by: Run | None, budget_cents: int, call_cents: float | None
) -> CheckRecord:
    """The run that was going when the budget ran out ended as paused for budget, the agent is paused, and no call
    was admitted once its spend had reached the budget (:func:`admitted_past_limit`).

    ``run`` is None where none was going: a product that learns a run's spend only when the run ends pauses the
    agent between runs (``spent_by``: the newest run by then, ended on its own); the agent must be paused."""
    problems = []
    if run is not None and (run.active or run.error_code != BUDGET_PAUSED):
        problems.append(f"run {run.id} is {run.status} ({run.error_code or 'no error code'}), not {BUDGET_PAUSED}")
    if not agent.paused_for_budget:
        problems.append(f"{agent.name} is not paused for budget")
    problems += admitted_past_limit(agent, budget_cents, call_cents)
    ended = "no run was going" + (f" (the newest, run {spent_by.id}, had ended {spent_by.status})" if spent_by else "")
    going = f"run {run.id} ended {run.status} ({run.error_code})" if run is not None else ended
    bound = "" if call_cents is None else f", within one {call_cents:g} cent call of its {budget_cents} cent budget"
    ok = f"{going}; {agent.name} is paused for budget{bound}"
    return CheckRecord(id=RUN_PAUSED, passed=not problems, detail="; ".join(problems) or ok)


def no_call_while_paused(
    calls_at_pause: int, agent: Agent, runs_since: Sequence[Run], served_since: int = 0
) -> CheckRecord:
    """From the pause until the raise, the agent made no model call and no run of it started.

    Calls are counted twice: on the product's record, and (``served_since``) by the harness's model server itself,
    which answers every call a CLI agent makes (a product that records a run's spend only when it ends keeps no
    count of its calls)."""
    problems = []
    if agent.spend.calls != calls_at_pause:
        problems.append(f"{agent.spend.calls - calls_at_pause} model call(s) after the pause")
    if served_since:
        problems.append(f"the model server answered {served_since} call(s) after the pause")
    if runs_since:
        problems.append(f"run(s) {', '.join(str(r.id) for r in runs_since)} started while paused")
    ok = f"{agent.name} made no call after the pause ({calls_at_pause} in all) and no run started"
    return CheckRecord(id=NO_CALL_WHILE_PAUSED, passed=not problems, detail="; ".join(problems) or ok)


def cost_page_shows(shown: ShownBudget, budget_cents: int) -> CheckRecord:
    """The cost page shows the agent paused for budget, having spent its budget."""
    problems = []
    if not shown.paused_for_budget:
        problems.append(f"it shows {shown.agent} as not paused")
    if shown.spent_cents < budget_cents:
        problems.append(f"it shows {shown.spent_cents:.2f} spent, under the {budget_cents} cent budget")
    ok = f"it shows {shown.agent} paused for budget, {shown.spent_cents:.2f} of {budget_cents} cents spent"
    return CheckRecord(id=COST_PAGE_SHOWS_PAUSE, passed=not problems, detail="; ".join(problems) or ok)


def resumed(agent: Agent, new_run: Run | None, budget_cents: int) -> CheckRecord:
    """After the raise the agent is no longer paused, and a run took the work up again."""
    problems = []
    if agent.paused_for_budget:
        problems.append(f"{agent.name} is still paused with a {budget_cents} cent budget")
    if new_run is None:
        problems.append("no run took the work up again")
    ok = f"{agent.name} resumed; run {new_run.id if new_run else '-'} took the work up again"
    return CheckRecord(id=RESUMED_AFTER_RAISE, passed=not problems, detail="; ".join(problems) or ok)
