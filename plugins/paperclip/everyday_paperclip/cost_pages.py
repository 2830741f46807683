"""Page object for Paperclip's Costs page, its Budgets tab: each agent's budget card and the hard-stop incidents.

An agent's budget card (title: the agent's name, "Monthly UTC budget") shows its state ("Paused" once its budget
paused it), what it spent this month ("Observed") and its budget, in dollars, with a Budget (USD) field and Update
budget. An agent its budget paused also has an incident card ("agent hard stop") above, whose New budget (USD) field
and "Raise budget & resume" are how Paperclip tells a person to resolve it. Selectors for this page live here (see
:mod:`.pages` for the conventions).
"""

from __future__ import annotations

import re
import time

from playwright.sync_api import Locator, Page, expect

from everyday_paperclip.pages import SHOWN_S, ms
from harness.core.product_records import ShownBudget

STATE_PAUSED = re.compile(r"^\s*paused\s*$", re.IGNORECASE | re.MULTILINE)


def _cents(text: str, label: str) -> float | None:
    """The dollar amount shown under ``label`` on a card, in cents."""
    found = re.search(rf"^\s*{label}\s*\n\s*\$([\d,]+(?:\.\d+)?)", text, re.IGNORECASE | re.MULTILINE)
    return round(float(found.group(1).replace(",", "")) * 100, 2) if found else None


class CostPage:
    def __init__(self, page: Page, base_url: str) -> None:
        self.page = page
        self.base_url = base_url.rstrip("/")

    def open(self) -> CostPage:
        """Costs from the sidebar, then its Budgets tab."""
        self.page.goto(f"{self.base_url}/")
        self.page.get_by_role("link", name="Costs", exact=True).click(timeout=ms(SHOWN_S))
        self.page.get_by_role("tab", name="Budgets").click(timeout=ms(SHOWN_S))
        expect(self.page.get_by_role("heading", name="agent budgets")).to_be_visible(timeout=ms(SHOWN_S))
        return self

    def _card(self, name: str, description: str | re.Pattern[str]) -> Locator:
        title = self.page.locator('[data-slot="card-title"]', has_text=re.compile(rf"^{re.escape(name)}$"))
        return (
            self.page.get_by_role("main")
            .locator('[data-slot="card"]')
            .filter(has=title)
            .filter(has=self.page.locator('[data-slot="card-description"]', has_text=description))
        )

    def _budget_card(self, name: str) -> Locator:
        return self._card(name, "Monthly UTC budget")

    def _incident(self, name: str) -> Locator:
        return self._card(name, re.compile("^Spending reached"))

    def agent(self, name: str) -> ShownBudget:
        card = self._budget_card(name)
        expect(card).to_be_visible(timeout=ms(SHOWN_S))
        text = card.inner_text()
        spent = _cents(text, "Observed")
        if spent is None:
            raise AssertionError(f"{name}'s budget card shows no amount observed: {text!r}")
        return ShownBudget(
            agent=name,
            spent_cents=spent,
            budget_cents=_cents(text, "Budget"),
            paused_for_budget=STATE_PAUSED.search(text) is not None,
        )

    def set_budget(self, name: str, cents: int) -> None:
        """Raise the budget where Paperclip offers it: the hard-stop incident's "Raise budget & resume" when the
        agent has one, its budget card's Update budget otherwise; then wait until the card shows the new budget."""
        dollars = f"{cents / 100:.2f}"
        expect(self._budget_card(name)).to_be_visible(timeout=ms(SHOWN_S))  # the page has its budgets and incidents
        incident = self._incident(name)
        if incident.count():
            incident.get_by_role("textbox").fill(dollars)
            incident.get_by_role("button", name="Raise budget & resume").click(timeout=ms(SHOWN_S))
            expect(incident).to_have_count(0, timeout=ms(SHOWN_S))
        else:
            card = self._budget_card(name)
            card.get_by_role("textbox").fill(dollars)
            card.get_by_role("button", name="Update budget").click(timeout=ms(SHOWN_S))
        deadline = time.monotonic() + SHOWN_S
        while _cents(self._budget_card(name).inner_text(), "Budget") != cents:
            if time.monotonic() > deadline:
                raise TimeoutError(f"timed out after {SHOWN_S:.0f} s waiting for {name}'s card to show ${dollars}")
            self.page.wait_for_timeout(200)
