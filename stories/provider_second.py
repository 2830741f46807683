"""A provider without a connector, reached through the aggregator the person chose after a restart.

The company installs the Arcade gateway through the public API: a fixture
with one read-only HubSpot action, look up a contact, and a credential only
the product holds. A person asks the lead for a HubSpot contact's record id.
They find the provider question; the controller restarts while it waits;
after a reload they choose Arcade. The gateway must have had no call before
the choice and exactly one after it, the lead's reply must carry the record
id (a contact marker the gateway made for this attempt only), no second
connection may appear, and the task is done.
"""

from __future__ import annotations

from harness.core.catalog import Case
from harness.decisions.connection import connection_names
from harness.decisions.contract import CONTACT_TASK_TITLE, HUBSPOT, contact_task
from harness.decisions.providers import (
    PROVIDER_PACE_S,
    PROVIDER_RUNS,
    choose,
    install_gateway,
    require_choice_outcome,
    require_question,
    restart_with_question_pending,
)
from harness.fixtures.gateway import GATEWAY_NAME
from harness.running.journey import Journey

CASE = Case(
    name="provider-second",
    needs=("providers", "controller-restart"),
    replay=False,
    scripted_deadline_s=120,
    max_run_records=PROVIDER_RUNS,
    scripted_pace_s=PROVIDER_PACE_S,
    description="Arcade chosen after a restart: no gateway call before, one after, its fresh marker reported.",
)


def story(journey: Journey) -> None:
    gateway = install_gateway(journey)
    before = connection_names(journey)
    task = journey.create_task(CONTACT_TASK_TITLE, contact_task(HUBSPOT))
    question, shown = require_question(journey, task, HUBSPOT)
    restart = restart_with_question_pending(journey, question, shown)
    decision = choose(journey, question, GATEWAY_NAME, gateway)
    require_choice_outcome(journey, task, HUBSPOT, decision, before, restart, gateway)
