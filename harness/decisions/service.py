"""A protected action on an installed service: set it up, see the request, decide in the browser, judge.

The story installs the document service fixture through the product's
public API with one Ask-first connection bound to the lead. Before any click
it requires exactly the pending request it set up (else it fails on
``decision.request-matches-story`` with a screenshot, and clicks nothing).
After the click it counts what the service itself received, which the
product cannot dress up, and reads what the agent said.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import cast

from harness.checks.decisions import (
    CaptureCounts,
    DecisionRecord,
    DeclineGradeInput,
    ExpectedRequest,
    ServiceOutcome,
    credential_checks,
    decision_saved_checks,
    outcome_checks,
    request_checks,
)
from harness.core.verdicts import StoryFailed
from harness.core.waiting import WaitTimeout, wait_for
from harness.decisions.contract import CONNECTION_NAME, SERVICE_NAME
from harness.fixtures.documents import PROTECTED_ACTION, DocumentService
from harness.products.base import DecisionView, RenderedPage, ServicesApi
from harness.products.records import Connection, Interaction, Service, Task
from harness.running.journey import Journey

CARD_WAIT_S = 30.0
# A decline story settles on the lead's reply after the decision; a silent agent fails the explanation check
# once this much of the deadline has passed with the task finished, instead of at the attempt's deadline.
REPLY_WAIT_S = 15.0


@dataclass(frozen=True)
class InstalledService:
    fixture: DocumentService
    service: Service
    connection: Connection

    def counts(self) -> CaptureCounts:
        """The protected action as the service recorded it: accepted calls, refused requests, returned ids."""
        capture = self.fixture.capture()
        calls = [e for e in capture if e.tool == PROTECTED_ACTION and e.outcome == "accepted"]
        return CaptureCounts(
            accepted_calls=len(calls),
            rejected_requests=sum(1 for e in capture if e.outcome == "rejected"),
            returned_documents=sorted(e.document_id for e in calls if e.document_id),
        )


def _api(journey: Journey) -> ServicesApi:
    return cast(ServicesApi, journey.api)


def _page(journey: Journey) -> DecisionView:
    return cast(DecisionView, journey.current_page())


def install_document_service(journey: Journey) -> InstalledService:
    """Start the fixture and install it with one Ask-first connection for the lead, through the public API."""
    capture = journey.evidence.folder / "snapshots" / "service-capture.jsonl"
    fixture = journey.resources.enter_context(DocumentService(capture))
    journey.evidence.add_known_secret("service credential", fixture.credential)
    api = _api(journey)
    service = api.install_service(SERVICE_NAME, fixture.url)
    connection = api.add_connection(service.id, CONNECTION_NAME, fixture.credential, "ask_first", [journey.lead.id])
    journey.evidence.note(
        "service installed",
        f"{service.name} at {fixture.url}; connection {connection.id} ({connection.policy}) for {journey.lead.name}",
    )
    return InstalledService(fixture=fixture, service=service, connection=connection)


def require_pending_request(journey: Journey, task: Task, installed: InstalledService) -> Interaction:
    """Exactly the request the story set up, stored and shown on one card; else fail before any click."""
    api = _api(journey)

    def pending() -> list[Interaction] | None:
        return [i for i in api.interactions(task.id) if i.status == "pending"] or None

    first = journey.wait(pending, f"a pending decision on task {task.id}", "decision-requested")[0]
    page = _page(journey)
    with journey.expecting("decision-card-shown", f"the card of interaction {first.id} on task {task.id}"):
        page.wait_for_decision_card(first.id, timeout=journey.deadline.budget(CARD_WAIT_S))
    stored = pending() or []
    cards = [card for card in page.decision_cards() if card.status == "pending"]
    journey.screenshot("decision requested")
    snapshot = journey.evidence.snapshot("interactions-before-decision", {"stored": stored, "shown": cards})
    expected = ExpectedRequest(
        kind="service_action",
        action=PROTECTED_ACTION,
        service_name=installed.service.name,
        connection_id=installed.connection.id,
        agent_id=journey.lead.id,
    )
    checks = request_checks(stored, expected, cards, journey.lead.name)
    journey.record_checks(checks, [journey.evidence.screenshots[-1], snapshot])
    failed = [check for check in checks if not check.passed]
    if failed:
        raise StoryFailed(f"{failed[0].id}: {failed[0].detail}; nothing was clicked")
    return stored[0]


def decide(journey: Journey, installed: InstalledService, request: Interaction, approve: bool) -> DecisionRecord:
    """Click Approve or Decline on the card, wait for the saved decision, then replay it through the API."""
    api = _api(journey)
    before = installed.counts()
    journey.evidence.snapshot("service-capture-before-decision", before)
    word = "approve" if approve else "decline"
    with journey.expecting("decision-saved", f"clicking {word} on interaction {request.id}"):
        _page(journey).decide(request.id, approve, timeout=journey.deadline.budget(CARD_WAIT_S))

    def saved() -> Interaction | None:
        found = next((i for i in api.interactions(request.task_id) if str(i.id) == str(request.id)), None)
        return found if found is not None and found.status != "pending" else None

    decided: Interaction = journey.wait(saved, f"interaction {request.id} decided", "decision-saved")
    journey.screenshot(f"{word}d")
    replay = api.decide(request.id, word)
    after = saved() or decided
    changed = [
        field for field in ("status", "decided_by", "decided_at") if getattr(after, field) != getattr(decided, field)
    ]
    record = DecisionRecord(
        interaction_id=request.id,
        decision=word,
        saved_as=decided.status,
        calls_before_decision=before.accepted_calls,
        decided_by=decided.decided_by,
        decided_at=decided.decided_at,
        replay_status=replay.status_code,
        replay_changed=changed,
    )
    path = journey.evidence.snapshot("decision", record)
    journey.evidence.note(
        "decision", f"{word} on interaction {request.id}, saved {decided.status} at {decided.decided_at}"
    )
    journey.record_checks(decision_saved_checks(record), [path, journey.evidence.screenshots[-1]])
    return record


def require_service_outcome(journey: Journey, task: Task, installed: InstalledService, record: DecisionRecord) -> None:
    """After the decision: the task finished, the agent's word, the service's own count, the credential unseen."""
    journey.wait_until_finished(task, "the agent after the decision")
    grade = _decline_grade(journey, task, record) if record.decision == "decline" else None
    if grade is not None:
        # The exact input of the decline grade, kept before anything later is observed.
        journey.evidence.snapshot("decline-grade", grade)
    replies = journey.api.task(task.id).agent_replies()
    outcome = ServiceOutcome(
        decision=record,
        capture=installed.counts(),
        interactions=_api(journey).interactions(task.id),
        final_reply=replies[-1].body if replies else None,
        decline_grade=grade,
    )
    path = journey.evidence.snapshot("service-outcome", outcome)
    journey.record_checks(outcome_checks(outcome), [path, "snapshots/service-capture.jsonl"])
    pages = {"task": _page(journey).rendered_html(), "services": _services_page_html(journey)}
    journey.record_checks(credential_checks(installed.fixture.credential, _api(journey).raw_reads(), pages), [])


def _decline_grade(journey: Journey, task: Task, record: DecisionRecord) -> DeclineGradeInput:
    """Wait (bounded) for a reply by the lead's final successful run on the task, written after the decision."""
    decided_at = datetime.fromisoformat(record.decided_at) if record.decided_at else None

    def reply() -> DeclineGradeInput | None:
        current = journey.api.task(task.id)
        succeeded = [r for r in current.runs if str(r.agent_id) == str(journey.lead.id) and r.status == "succeeded"]
        final = succeeded[-1] if succeeded else None
        after = [
            c
            for c in current.agent_replies()
            if final is not None
            and str(c.run_id) == str(final.id)
            and decided_at is not None
            and datetime.fromisoformat(c.created_at) > decided_at
        ]
        if not after:
            return None
        return DeclineGradeInput(
            interaction_id=record.interaction_id,
            decided_at=record.decided_at,
            settling_run_id=final.id if final else None,
            reply_run_id=after[-1].run_id,
            reply=after[-1].body,
        )

    try:
        return wait_for(reply, timeout=journey.deadline.budget(REPLY_WAIT_S), what="a reply after the decision")
    except WaitTimeout:
        return DeclineGradeInput(
            interaction_id=record.interaction_id,
            decided_at=record.decided_at,
            settling_run_id=None,
            reply_run_id=None,
            reply=None,
        )


def _services_page_html(journey: Journey) -> str:
    """The product's start page (where services and connections are listed), opened in a page of its own."""
    page = journey.browser_context.new_page()
    try:
        listing = journey.driver.task_list(page, journey.instance.base_url).open()
        return cast(RenderedPage, listing).rendered_html()
    finally:
        page.close()
