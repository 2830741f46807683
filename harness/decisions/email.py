"""An email address for an agent: chat connectors on, one durable AgentMail card, declined.

The story switches the company's chat connectors on through the API, asks
the lead for an email address, and requires one card for the lead and this
user. After a reload the card must be the same, with one password field, a
direct link to where the key is made, and no access selectors or modal. It
declines, then requires no connection and no repeated request. No key is
ever typed: nothing reaches the real provider.
"""

from __future__ import annotations

from harness.core.product_records import Interaction, Task
from harness.decisions import requests
from harness.decisions.connection import connection_names
from harness.decisions.contract import AGENTMAIL
from harness.decisions.rules import (
    DecisionRecord,
    ExpectedRequest,
    IntentOutcome,
    email_card_checks,
    intent_outcome_checks,
)
from harness.judging.observations import judge
from harness.running.journey import Journey

ACTION = "set_up_email"


def enable_chat_connectors(journey: Journey) -> list[str]:
    """Switch the company's chat connectors on; returns the connections there are before the request."""
    company = requests.services_api(journey).set_chat_connectors(True)
    journey.evidence.note("settings", f"chat connectors on: {company.chat_connectors}")
    before = connection_names(journey)
    journey.evidence.snapshot("connections-before", before)
    return before


def require_email_card(journey: Journey, task: Task) -> Interaction:
    """One card for the lead and this user; the same after a reload, shaped as an email setup must be."""
    expected = ExpectedRequest(kind="email_setup", action=ACTION, provider=AGENTMAIL, agent_id=journey.lead.id)
    request = requests.require_pending_request(journey, task, expected)
    page = requests.decision_page(journey)
    first = page.email_card(request.id)
    with journey.expecting("task-page-shown", f"reloading task {task.id}"):
        page.reload()
        page.wait_for_decision_card(request.id, timeout=journey.shown_budget())
    again = page.email_card(request.id)
    journey.screenshot("email card after reload")
    path = journey.evidence.snapshot("email-card", {"first": first, "after_reload": again})
    journey.record_checks(judge(email_card_checks, first, again), [path, journey.evidence.screenshots[-1]])
    return request


def require_email_outcome(journey: Journey, task: Task, before: list[str], record: DecisionRecord) -> None:
    grade = requests.settle_after_decision(journey, task, record)
    outcome = IntentOutcome(
        decision=record,
        kind="email_setup",
        provider=AGENTMAIL,
        explanation_required=False,
        interactions=requests.services_api(journey).interactions(),
        connections_before=before,
        connections_after=connection_names(journey),
        decline_grade=grade,
    )
    path = journey.evidence.snapshot("email-outcome", outcome)
    journey.record_checks(judge(intent_outcome_checks, outcome), [path])
