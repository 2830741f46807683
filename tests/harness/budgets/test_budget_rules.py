"""The budget rule on calls while paused, decided on synthetic records: the product's count and the harness's own."""

from __future__ import annotations

from harness.budgets.rules import no_call_while_paused, run_paused
from harness.core.product_records import Agent, Spend
from tests.harness.hiring.test_team_checks import run

LEAD = Agent(
    id=1, name="Avery", role="lead", reports_to=None, adapter="claude", model="m", spend=Spend(cents=9, calls=0)
)


def test_a_call_the_model_server_answered_after_the_pause_fails_even_where_the_product_counts_none() -> None:
    assert no_call_while_paused(0, LEAD, []).passed
    served = no_call_while_paused(0, LEAD, [], served_since=2)
    assert not served.passed and "answered 2 call(s) after the pause" in served.detail
    counted = no_call_while_paused(0, LEAD.model_copy(update={"spend": Spend(calls=1)}), [])
    assert not counted.passed and "1 model call(s) after the pause" in counted.detail


def test_between_runs_the_agent_must_still_be_paused_and_a_run_that_was_going_must_end_paused_for_budget() -> None:
    paused = LEAD.model_copy(update={"paused_for_budget": True, "status": "paused"})
    ended = run(4)
    between = run_paused(None, paused, ended, 9, 1.0)
    assert between.passed and "run 4, had ended succeeded" in between.detail
    assert not run_paused(None, LEAD, ended, 9, 1.0).passed  # never paused
    assert not run_paused(ended, paused, None, 9, 1.0).passed  # the run that was going was not paused for budget


def test_a_call_admitted_once_the_spend_had_reached_the_budget_fails_the_pause() -> None:
    """Calls of 1 cent against a 2 cent budget: the pause must come at 2 cents (or within one call of it), not 3."""
    paused = LEAD.model_copy(update={"paused_for_budget": True, "status": "paused"})
    at_limit = paused.model_copy(update={"spend": Spend(simulated_cents=2.0, calls=2)})
    past = paused.model_copy(update={"spend": Spend(simulated_cents=3.0, calls=3)})
    assert run_paused(None, at_limit, run(4), 2, 1.0).passed
    late = run_paused(None, past, run(4), 2, 1.0)
    assert not late.passed and "1 call(s) admitted once the budget was reached" in late.detail
    assert run_paused(None, past, run(4), 2, None).passed  # a script without a fixed call price draws no bound
