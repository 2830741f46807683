"""Playwright page objects for the testbed's routines and cost pages (same conventions as :mod:`.pages`)."""

from __future__ import annotations

from playwright.sync_api import Locator, Page, expect

from harness.core.product_records import RecordId, ShownBudget, ShownRoutineRun


class RoutinePage:
    """One routine's page: its webhook trigger and its record of runs."""

    def __init__(self, page: Page, base_url: str, routine_id: RecordId) -> None:
        self.page = page
        self.base_url = base_url.rstrip("/")
        self.routine_id = routine_id

    def open(self) -> RoutinePage:
        self.page.goto(f"{self.base_url}/routines/{self.routine_id}")
        expect(self.page.get_by_test_id("routine-page")).to_be_visible()
        return self

    def reload(self) -> RoutinePage:
        return self.open()

    def runs(self) -> list[ShownRoutineRun]:
        rows = self.page.get_by_test_id("routine-run")
        return [
            ShownRoutineRun(
                task_id=row.get_attribute("data-task-id") or "", status=row.get_attribute("data-status") or ""
            )
            for row in rows.all()
        ]


class RoutinesPage:
    """The routines list and the new-routine form."""

    def __init__(self, page: Page, base_url: str) -> None:
        self.page = page
        self.base_url = base_url.rstrip("/")

    def open(self) -> RoutinesPage:
        self.page.goto(f"{self.base_url}/")
        self.page.get_by_test_id("routines-link").click()
        expect(self.page.get_by_test_id("new-routine-form")).to_be_visible()
        return self

    def create(self, title: str, instructions: str, agent: str) -> RoutinePage:
        form = self.page.get_by_test_id("new-routine-form")
        form.get_by_label("Title of the task it creates").fill(title)
        form.get_by_label("Instructions").fill(instructions)
        form.get_by_label("Agent").select_option(label=agent)
        form.get_by_role("button", name="Create routine").click()
        shown = self.page.get_by_test_id("routine-page")
        expect(shown).to_be_visible()
        return RoutinePage(self.page, self.base_url, int(shown.get_attribute("data-routine-id") or 0))


class CostPage:
    """The cost page: one row per agent with its spend, budget, state and budget form."""

    def __init__(self, page: Page, base_url: str) -> None:
        self.page = page
        self.base_url = base_url.rstrip("/")

    def open(self) -> CostPage:
        self.page.goto(f"{self.base_url}/")
        self.page.get_by_test_id("costs-link").click()
        expect(self.page.get_by_test_id("cost-agents")).to_be_visible()
        return self

    def _row(self, name: str) -> Locator:
        return self.page.locator(f'[data-testid="cost-agent"][data-agent-name="{name}"]')

    def agent(self, name: str) -> ShownBudget:
        row = self._row(name)
        expect(row).to_be_visible()
        budget = row.get_attribute("data-budget-cents") or ""
        return ShownBudget(
            agent=name,
            spent_cents=float(row.get_attribute("data-spent-cents") or 0),
            budget_cents=float(budget) if budget else None,
            paused_for_budget=row.get_by_test_id("cost-agent-state").inner_text().strip().startswith("Paused"),
        )

    def set_budget(self, name: str, cents: int) -> None:
        row = self._row(name)
        row.get_by_label("Budget (cents)").fill(str(cents))
        row.get_by_role("button", name="Save budget").click()
        expect(self._row(name)).to_have_attribute("data-budget-cents", str(cents))
