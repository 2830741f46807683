"""A connection the company does not have: the agent asks for it, the person answers Not now.

The company starts with no connection; the story requires one pending
connection intent for the provider it names, clicks Not now, and then
requires the refusal saved, no connection made, no second card for the same
provider, and an explanation from the agent. Nothing authenticates to or
reads the real provider.
"""

from __future__ import annotations

from harness.core.product_records import Interaction, Task
from harness.core.records import CheckRecord
from harness.decisions import requests
from harness.decisions.rules import DecisionRecord, ExpectedRequest, IntentOutcome, intent_outcome_checks
from harness.judging.observations import judge
from harness.running.journey import Journey


def connection_names(journey: Journey) -> list[str]:
    return sorted(f"{c.id} {c.service_name}/{c.name}" for c in requests.services_api(journey).connections())


def require_no_connections(journey: Journey) -> list[str]:
    """The premise: the company has no connection yet (kept as a snapshot)."""
    before = connection_names(journey)
    path = journey.evidence.snapshot("connections-before", before)
    check = CheckRecord(
        id="connection.none-at-start",
        passed=not before,
        detail=f"the company starts with {len(before)} connection(s)",
    )
    journey.record_checks([check], [path])
    return before


def require_pending_intent(journey: Journey, task: Task, provider: str) -> Interaction:
    expected = ExpectedRequest(kind="connection_intent", action="connect", provider=provider, agent_id=journey.lead.id)
    return requests.require_pending_request(journey, task, expected)


def require_intent_outcome(
    journey: Journey, task: Task, provider: str, before: list[str], record: DecisionRecord
) -> None:
    grade = requests.settle_after_decision(journey, task, record)
    outcome = IntentOutcome(
        decision=record,
        provider=provider,
        interactions=requests.services_api(journey).interactions(task.id),
        connections_before=before,
        connections_after=connection_names(journey),
        decline_grade=grade,
    )
    path = journey.evidence.snapshot("intent-outcome", outcome)
    journey.record_checks(judge(intent_outcome_checks, outcome), [path])
