"""How Paperclip's budget records and its Budgets tab read in the harness's words (no product: its JSON and text as
the pinned release gives them; the cell budget-stop on Paperclip plays them for real)."""

from __future__ import annotations

from everyday_paperclip.api import PaperclipApi, _error_code
from everyday_paperclip.cost_pages import STATE_PAUSED, _cents
from harness.core.product_records import BUDGET_PAUSED

# An agent's budget card on Costs > Budgets, as Chromium's innerText gives it (the labels upper-cased by its CSS).
PAUSED_CARD = (
    "AGENT\nAvery\nMonthly UTC budget\nPAUSED\nOBSERVED\n$0.03\n150% of limit\nBUDGET\n$0.02\n"
    "Soft alert at 80% · budget pause\nRemaining\n$0.00\n"
    "Heartbeats are paused for this scope until the budget is raised or the incident is dismissed.\n"
    "BUDGET (USD)\nUpdate budget"
)
RAISED_CARD = "AGENT\nAvery\nMonthly UTC budget\nHEALTHY\nOBSERVED\n$0.02\n4% of limit\nBUDGET\n$0.50\nRemaining\n$0.48"


def test_the_budget_card_gives_spend_budget_and_the_pause() -> None:
    assert _cents(PAUSED_CARD, "Observed") == 3 and _cents(PAUSED_CARD, "Budget") == 2
    assert STATE_PAUSED.search(PAUSED_CARD)
    assert _cents(RAISED_CARD, "Budget") == 50 and not STATE_PAUSED.search(RAISED_CARD)
    assert _cents("AGENT\nAvery", "Observed") is None


def test_a_run_the_budget_cancelled_is_paused_for_budget_and_no_other_cancel_is() -> None:
    base = {"status": "cancelled", "error": "Cancelled due to budget pause"}
    assert _error_code({**base, "resultJson": {"stopReason": "budget_paused"}}) == BUDGET_PAUSED
    assert _error_code({**base, "error": "Cancelled due to agent pause"}) == "paused_by_user"
    assert _error_code({"status": "cancelled", "resultJson": {"stopReason": "cancelled"}}) != BUDGET_PAUSED


def test_only_an_agent_its_budget_paused_is_paused_for_budget() -> None:
    raw = {"id": "a", "name": "Avery", "role": "engineer", "adapterType": "process", "spentMonthlyCents": 2}
    by_budget = PaperclipApi._agent({**raw, "status": "paused", "pauseReason": "budget"}, calls=2)
    by_hand = PaperclipApi._agent({**raw, "status": "paused", "pauseReason": "manual"})
    assert by_budget.paused_for_budget and by_budget.spend.calls == 2 and by_budget.spend.cents == 2
    assert not by_hand.paused_for_budget and by_hand.status == "paused"
