"""A budget running out, in a person's vocabulary: what the budget-stop story does and requires.

The person sets a small budget for the lead on the product's cost page and
gives it metered work. Once the budget runs out the product must pause the
lead: the run that was going ends as paused for budget, the cost page says
so, and nothing calls a model or starts while the lead stays paused. The
person raises the budget on the same page, and the work must go on. Each
step decides one rule of :mod:`harness.budgets.rules`; a rule that fails
ends the story under its own check id.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar, cast

from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from pydantic import BaseModel

from harness.budgets import rules
from harness.core.product_records import BUDGET_PAUSED, Agent, RecordId, Run, Task
from harness.judging.observations import judge
from harness.products.base import BudgetsDriver, CostPageView
from harness.running.journey import Journey

T = TypeVar("T")
LATE = "late"


class Pause(BaseModel):
    """What the person knows the moment the product paused the agent: the run that was going, and the count."""

    run_id: RecordId | None  # None: no run was going (the product learned the spend as a run ended)
    spent_by: RecordId  # the newest run by then
    calls: int
    runs_before: frozenset[str]
    served: int = 0  # model calls the harness's model server had answered by then (none without one)


class Wallet:
    """One agent's budget during a journey, as the person handles it on the cost page."""

    def __init__(self, journey: Journey, agent: Agent) -> None:
        self.journey = journey
        self.agent = agent
        self.budget_cents = 0

    def _page(self) -> CostPageView:
        driver = cast(BudgetsDriver, self.journey.driver)
        return driver.cost_page(self.journey.page, self.journey.instance.base_url)

    def _now(self) -> Agent:
        return next(a for a in self.journey.api.agents() if a.id == self.agent.id)

    def set_budget(self, cents: int) -> None:
        """The agent's budget, set up through the product's API before the work is given (an admin's setting)."""
        self.journey.api.set_agent_budget(self.agent.id, cents)
        self.budget_cents = cents
        self.journey.evidence.note("budget", f"{self.agent.name}: {cents} cents")

    @contextmanager
    def _on_page(self, check_id: str, what: str) -> Iterator[None]:
        """A cost page that never shows what the step waits for fails the step's own check."""
        try:
            yield
        except (PlaywrightTimeoutError, AssertionError, TimeoutError) as error:
            first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            self.journey.fail_check(check_id, f"{what}: {first}")

    def _within_shown(self, probe: Callable[[], T | None], what: str, at_a_tick: bool = False) -> T | None:
        """What ``probe`` finds within the environment's shown wait; None when it found nothing by then.

        ``at_a_tick``: what ``probe`` looks for is work the product takes up at its scheduler's next tick."""
        deadline = time.monotonic() + self.journey.shown_budget(at_a_tick)

        def found_or_late() -> T | str | None:
            found = probe()
            return found if found is not None else (LATE if time.monotonic() > deadline else None)

        found = self.journey.wait(found_or_late, what, "task-finished")
        return None if found == LATE else found  # type: ignore[no-any-return]

    def wait_until_paused(self, task: Task) -> Pause:
        """Until the product paused the agent; work that ends without a pause fails ``budget.run-paused``.

        A product that learns a run's spend only as the run ends pauses the agent just after it: a task at rest
        whose agent is not paused yet gets the environment's shown wait for the pause before it counts as over."""

        def paused() -> Agent | None:
            agent = self._now()
            return agent if agent.paused_for_budget else None

        def paused_or_over() -> Agent | str | None:
            return paused() or ("over" if self.journey.api.task(task.id).at_rest else None)

        what = f"{self.agent.name} paused for budget, or task {task.id} at rest"
        found = self.journey.wait(paused_or_over, what, "task-finished")
        if found == "over":
            found = self._within_shown(paused, f"{self.agent.name} paused for budget once its run had ended")
        if found is None:
            agent = self._now()
            self.journey.fail_check(rules.RUN_PAUSED, rules.never_paused(agent, self.budget_cents).detail)
        runs = self.journey.api.task(task.id).runs
        # A product that records a CLI agent's spend only once its run ends (its runs' spend does not count their
        # calls) pauses between runs: then the newest run, ended on its own, was not going when the budget ran out.
        last = runs[-1]
        per_run = self.journey.cell.profile.model_server != "none" and not self.journey.driver.meters_model_calls
        going = last.active or last.error_code == BUDGET_PAUSED or not per_run
        pause = Pause(
            run_id=last.id if going else None,
            spent_by=last.id,
            calls=found.spend.calls,
            runs_before=frozenset(str(r.id) for r in runs),
            served=self._served(),
        )
        when = f"run {pause.run_id}" if pause.run_id is not None else f"after run {pause.spent_by} ended"
        self.journey.evidence.note("paused", f"{self.agent.name} after {pause.calls} call(s), {when}")
        self.journey.screenshot("agent paused")
        return pause

    def require_paused(self, task: Task, pause: Pause) -> None:
        """Once the run that was going ended (it gets the shown budget), the cost page shows the pause, no call
        was made and no run started since, and the run is recorded as paused for budget."""

        if (going_id := pause.run_id) is not None:

            def run_over() -> Run | None:
                run = self._run(task, going_id)
                return None if run.active else run

            self._within_shown(run_over, f"run {going_id} to end after the pause")
            self.journey.excuse_interruption(self._run(task, going_id))
        with self._on_page(rules.COST_PAGE_SHOWS_PAUSE, f"reading {self.agent.name}'s row on the cost page"):
            shown = self._page().open().agent(self.agent.name)
        self.journey.require(judge(rules.cost_page_shows, shown, self.budget_cents), "cost page")
        agent = self._now()
        records = self.journey.evidence.snapshot("task-while-paused", self.journey.api.task(task.id))
        since = [r for r in self.journey.api.task(task.id).runs if str(r.id) not in pause.runs_before]
        served = self._served() - pause.served
        self.journey.require(
            judge(rules.no_call_while_paused, pause.calls, agent, since, served), "no call while paused", records
        )
        going = self._run(task, going_id) if going_id is not None else None
        self.journey.require(
            judge(rules.run_paused, going, agent, self._run(task, pause.spent_by)), "run paused", records
        )

    def raise_budget(self, task: Task, cents: int, pause: Pause) -> None:
        """Raise the budget on the cost page; the agent must be resumed and a run take the work up again."""
        with self._on_page(rules.RESUMED_AFTER_RAISE, f"raising {self.agent.name}'s budget on the cost page"):
            self._page().open().set_budget(self.agent.name, cents)
        self.budget_cents = cents
        self.journey.evidence.note("budget raised", f"{self.agent.name}: {cents} cents")
        self.journey.screenshot(f"budget raised to {cents} cents")
        self.journey.open_task(task)  # back where the work is: its page shows whether it goes on

        def new_run() -> Run | None:
            runs = self.journey.api.task(task.id).runs
            return next((r for r in runs if str(r.id) not in pause.runs_before), None)

        started = self._within_shown(new_run, "a run after the raise", at_a_tick=True)
        self.journey.require(judge(rules.resumed, self._now(), started, cents), "resumed")

    def _served(self) -> int:
        server = self.journey.model_server
        return server.model_calls() if server is not None else 0

    def _run(self, task: Task, run_id: RecordId) -> Run:
        return next(r for r in self.journey.api.task(task.id).runs if r.id == run_id)
