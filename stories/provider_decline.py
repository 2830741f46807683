"""A provider without a connector: the person is asked which aggregator may reach it, and answers None.

The company has no connections. A person asks the lead to look a contact up
in HubSpot, which the product reaches only through an aggregator. They find
one question listing Composio, Arcade, Zapier and None, in that order,
saying that choosing one sends data to an external service. While it waits,
the product's controller restarts; after a reload the question is there as
it was, and they choose None. Afterwards one answer is saved, no connection
was made, the lead reported nothing it could not have read, said why it
could not do the work, and the task is done.
"""

from __future__ import annotations

from harness.core.catalog import Case
from harness.core.criteria import decline_explanation
from harness.decisions.connection import require_no_connections
from harness.decisions.contract import CONTACT_TASK_TITLE, HUBSPOT, NO_PROVIDER, contact_task
from harness.decisions.providers import (
    PROVIDER_PACE_S,
    PROVIDER_RUNS,
    choose,
    require_choice_outcome,
    require_question,
    restart_with_question_pending,
)
from harness.running.journey import Journey

CASE = Case(
    name="provider-decline",
    needs=("providers", "controller-restart"),
    replay=False,
    scripted_deadline_s=120,
    max_run_records=PROVIDER_RUNS,
    scripted_pace_s=PROVIDER_PACE_S,
    description="HubSpot only through aggregators: one disclosed question, kept across a restart; None, nothing made up.",
    criteria=(decline_explanation("every provider"),),
)


def story(journey: Journey) -> None:
    before = require_no_connections(journey)
    task = journey.create_task(CONTACT_TASK_TITLE, contact_task(HUBSPOT))
    question, shown = require_question(journey, task, HUBSPOT)
    restart = restart_with_question_pending(journey, question, shown)
    decision = choose(journey, question, NO_PROVIDER)
    require_choice_outcome(journey, task, HUBSPOT, decision, before, restart)
