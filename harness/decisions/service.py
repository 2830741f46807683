"""A protected action on an installed service: the document service fixture, installed through the API.

The story installs the fixture with one Ask-first connection bound to the
lead, then takes the shared decision steps (:mod:`harness.decisions.requests`).
What the service received is counted from its own capture, which the product
cannot dress up.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from harness.core.product_records import Connection, Interaction, RecordId, Service, Task
from harness.decisions import requests
from harness.decisions.contract import CONNECTION_NAME, SERVICE_NAME
from harness.decisions.rules import (
    CaptureCounts,
    DecisionRecord,
    ExpectedRequest,
    ServiceOutcome,
    credential_checks,
    credential_sightings,
    no_call_before_decision,
    outcome_checks,
)
from harness.fixtures.documents import PROTECTED_ACTION, DocumentService
from harness.judging.observations import judge
from harness.running.journey import Journey
from harness.running.readbacks import NOTHING_SHOWN


@dataclass(frozen=True)
class InstalledService:
    fixture: DocumentService
    service: Service
    connection: Connection

    def counts(self, before: datetime | None = None) -> CaptureCounts:
        """The protected action as the service recorded it (only what reached it ``before`` a moment, when given):
        accepted calls, refused requests, returned ids."""
        capture = self.fixture.capture(before)
        calls = [e for e in capture if e.tool == PROTECTED_ACTION and e.outcome == "accepted"]
        return CaptureCounts(
            accepted_calls=len(calls),
            rejected_requests=sum(1 for e in capture if e.outcome == "rejected"),
            returned_documents=sorted(e.document_id for e in calls if e.document_id),
        )


def install_document_service(journey: Journey) -> InstalledService:
    """Start the fixture and install it with one Ask-first connection for the lead, through the public API."""
    capture = journey.evidence.folder / "snapshots" / "service-capture.jsonl"
    fixture = journey.resources.enter_context(DocumentService(capture))
    journey.evidence.add_known_secret("service credential", fixture.credential)
    api = requests.services_api(journey)
    service = api.install_service(SERVICE_NAME, fixture.url)
    connection = api.add_connection(service.id, CONNECTION_NAME, fixture.credential, "ask_first", [journey.lead.id])
    journey.entered(
        f"connection {connection.id}",
        {"name": CONNECTION_NAME, "policy": "ask_first"},
        lambda: _connection_fields(api.connections(), connection.id),
        lambda reload: {},
        NOTHING_SHOWN,  # set through the API: the read-back of settings is the records'
    )
    journey.evidence.note(
        "service installed",
        f"{service.name} at {fixture.url}; connection {connection.id} ({connection.policy}) for {journey.lead.name}",
    )
    return InstalledService(fixture=fixture, service=service, connection=connection)


def _connection_fields(connections: list[Connection], connection_id: RecordId) -> dict[str, str | None]:
    found = next((c for c in connections if str(c.id) == str(connection_id)), None)
    if found is None:
        return {"name": None, "policy": None}
    return {"name": found.name, "policy": found.policy}


def require_pending_request(journey: Journey, task: Task, installed: InstalledService) -> Interaction:
    expected = ExpectedRequest(
        kind="service_action",
        action=PROTECTED_ACTION,
        service_name=installed.service.name,
        connection_id=installed.connection.id,
        agent_id=journey.lead.id,
    )
    return requests.require_pending_request(journey, task, expected)


def decide(journey: Journey, installed: InstalledService, request: Interaction, approve: bool) -> DecisionRecord:
    """Click yes or no; the service's calls before the click are judged once it is over (``judged_after_the_click``)."""

    def calls_before(clicking: datetime) -> tuple[CaptureCounts, int]:
        counted = installed.counts(before=clicking)
        return counted, counted.accepted_calls

    return requests.judged_after_the_click(
        journey,
        lambda: requests.decide(journey, request, approve),
        "service-capture-before-decision",
        calls_before,
        no_call_before_decision,
    )


def require_service_outcome(journey: Journey, task: Task, installed: InstalledService, record: DecisionRecord) -> None:
    """After the decision: the task finished, the agent's word, a declined request approved nowhere later, the
    service's own count, the credential unseen."""
    grade = requests.settle_after_decision(journey, task, record)
    later = requests.approve_after_decline(journey, task, record) if record.decision == "decline" else None
    replies = journey.api.task(task.id).agent_replies()
    api = requests.services_api(journey)
    outcome = ServiceOutcome(
        decision=record,
        capture=installed.counts(),
        interactions=api.interactions(task.id),
        final_reply=replies[-1].body if replies else None,
        decline_grade=grade,
        approval_after_decline=later,
    )
    path = journey.evidence.snapshot("service-outcome", outcome)
    journey.record_checks(judge(outcome_checks, outcome), [path, "snapshots/service-capture.jsonl"])
    pages = {"task": requests.decision_page(journey).rendered_html(), "services": requests.services_page_html(journey)}
    journey.record_checks(
        judge(credential_checks, credential_sightings(installed.fixture.credential, api.raw_reads(), pages)).reading(
            origin="harness"
        ),
        [],
    )
