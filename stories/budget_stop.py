"""The lead's budget runs out, and a raise lets the work finish.

A person gives the lead a small budget and metered work: the slugify tool.
When the lead's spend reaches its budget the product must pause it: the run
that was going ends as paused for budget, the cost page shows the pause,
and no model call is made and no run starts while the lead stays paused.
The person raises the budget on the cost page; the work must go on and
deliver a ZIP the oracle passes. A product that learns a CLI agent's spend
only when its run ends pauses the agent between runs: the metered work then
takes the replay two runs, so that work is left when the budget runs out.
"""

from __future__ import annotations

from harness.budgets.steps import Wallet
from harness.core.catalog import Case
from harness.running.journey import Journey
from oracle.tasks.slugify.contract import BUILD_TASK, BUILD_TASK_TITLE

CASE = Case(
    name="budget-stop",
    needs=("budget-pause",),
    scripted_deadline_s=120,
    description="The lead's budget runs out mid-build: paused, shown, no call while paused; raised, the work finishes.",
)

SMALL_BUDGET_CENTS = 2
RAISED_BUDGET_CENTS = 50
METERED_BUILD = f"{BUILD_TASK}\n\nThis is metered work: every model call counts against your budget."


def story(journey: Journey) -> None:
    wallet = Wallet(journey, journey.lead)
    wallet.set_budget(SMALL_BUDGET_CENTS)
    task = journey.create_task(BUILD_TASK_TITLE, METERED_BUILD)
    pause = wallet.wait_until_paused(task)
    wallet.require_paused(task, pause)
    wallet.raise_budget(task, RAISED_BUDGET_CENTS, pause)
    journey.wait_until_finished(task, "the build after the raise")
    build = journey.download_latest_delivery(task, phase="build")
    journey.grade(build, mode="base")
