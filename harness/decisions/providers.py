"""Reaching an outside provider: the native card, the provider question across a restart, and the choice.

A provider with a native connector (Jira) must get its connection card and
never a provider question. One without (HubSpot) must get exactly one
question listing the aggregators in the catalog's order, then None, with a
disclosure that choosing one sends data to an external service; it must
survive a controller restart, shown as it was after a reload, before the
person chooses in the browser. After None nothing is connected or made up;
after Arcade the gateway (a fixture installed through the public API) is
called exactly once, never before the choice, and the agent's reply carries
the contact marker only this attempt's gateway could give it.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, cast

from harness.core.product_records import Connection, Interaction, ProviderQuestionCard, Service, Task
from harness.core.verdicts import StoryFailed
from harness.decisions import requests
from harness.decisions.connection import connection_names
from harness.decisions.contract import NO_PROVIDER
from harness.decisions.provider_rules import (
    GatewayCounts,
    ProviderOutcome,
    no_call_before_choice,
    no_question_check,
    outcome_checks,
    question_checks,
    question_survived_check,
)
from harness.decisions.rules import DecisionRecord, ExpectedRequest, credential_checks, credential_sightings
from harness.faults.restart import PendingRestart, keep_final_pending, restart_while_pending
from harness.fixtures.gateway import GATEWAY_NAME, ArcadeGateway
from harness.judging.observations import judge
from harness.products.views import ProviderQuestionView
from harness.running.journey import Journey

ACTION = "choose_provider"
GATEWAY_CONNECTION = "Arcade gateway"


def question_page(journey: Journey) -> ProviderQuestionView:
    return cast(ProviderQuestionView, journey.current_page())


# ---- the Arcade gateway ----------------------------------------------------------------------------


# A provider story expects two runs of the lead: it asks and ends its run; the person's answer starts the next.
PROVIDER_RUNS = 2
PROVIDER_PACE_S = 0.3
"""The scripted lead's step time in the provider stories. Each run is a few steps (ask and end; read the answer,
reply and end): at the fast default such a run is over within the invariant watch's half second between two
looks, which then has seen no run at work and cannot say the invariants about one held."""


@dataclass(frozen=True)
class InstalledGateway:
    fixture: ArcadeGateway
    service: Service
    connection: Connection

    def counts(self, before: datetime | None = None, calls_before_choice: int | None = None) -> GatewayCounts:
        """The look-up action as the gateway recorded it (only what reached it ``before`` a moment, when given):
        accepted calls, refused requests, markers returned."""
        calls = self.fixture.look_ups(before)
        return GatewayCounts(
            marker=self.fixture.marker,
            calls_before_choice=calls_before_choice,
            calls=len(calls),
            markers_returned=sorted({e.marker for e in calls if e.marker}),
            rejected_requests=sum(1 for e in self.fixture.capture(before) if e.outcome == "rejected"),
        )


def install_gateway(journey: Journey) -> InstalledGateway:
    """Start the gateway and install it with its credential (held by the product, bound to no agent yet)."""
    capture = journey.evidence.folder / "snapshots" / "gateway-capture.jsonl"
    fixture = journey.resources.enter_context(ArcadeGateway(capture))
    journey.evidence.add_known_secret("gateway credential", fixture.credential)
    api = requests.services_api(journey)
    service = api.install_service(GATEWAY_NAME, fixture.url)
    connection = api.add_connection(service.id, GATEWAY_CONNECTION, fixture.credential, "ask_first", [])
    journey.evidence.note("gateway installed", f"{service.name} at {fixture.url}; connection {connection.id}")
    return InstalledGateway(fixture=fixture, service=service, connection=connection)


# ---- the question -----------------------------------------------------------------------------------


def require_question(journey: Journey, task: Task, provider: str) -> tuple[Interaction, ProviderQuestionCard]:
    """One pending provider question for the lead, its options and disclosure right; else fail, nothing chosen."""
    expected = ExpectedRequest(kind="provider_question", action=ACTION, provider=provider, agent_id=journey.lead.id)
    stored = requests.require_pending_request(journey, task, expected)
    shown = question_page(journey).provider_question(stored.id)
    journey.screenshot("provider question")
    path = journey.evidence.snapshot("provider-question", {"stored": stored, "shown": shown})
    checks = journey.record_checks(judge(question_checks, stored, shown), [path, journey.evidence.screenshots[-1]])
    failed = [check for check in checks if check.failed]
    if failed:
        raise StoryFailed(f"{failed[0].id}: {failed[0].detail}; nothing was chosen")
    return stored, shown


def restart_with_question_pending(
    journey: Journey, question: Interaction, shown: ProviderQuestionCard
) -> PendingRestart:
    """Restart the controller while the question waits; it must be stored and shown after a reload as before."""
    page = question_page(journey)

    def on_the_page() -> ProviderQuestionCard | None:
        try:
            page.wait_for_decision_card(question.id, timeout=journey.shown_budget())
        except AssertionError:
            return None
        return page.provider_question(question.id)

    record = restart_while_pending(journey, question, signal.SIGTERM, on_the_page)
    judged = judge(question_survived_check, question, record.after.stored, shown, record.after.shown)
    [check] = journey.record_checks(judged, [*record.evidence, journey.evidence.screenshots[-1]])
    if record.after.stored is None or record.after.shown is None:
        raise StoryFailed(f"{check.id}: {check.detail}; there is nothing to choose on")
    return record


def choose(
    journey: Journey, question: Interaction, option: str, gateway: InstalledGateway | None = None
) -> DecisionRecord:
    """Click one option of the question in the browser; the choice must be saved once. With a gateway installed,
    its look-ups before the click are judged once it is over (``requests.judged_after_the_click``)."""
    word: Literal["approve", "decline"] = "decline" if option == NO_PROVIDER else "approve"

    # The choice is about one setting: the asking agent may now use the chosen aggregator's connection.
    granted = {
        f"connection {c.id} agent_ids" for c in requests.services_api(journey).connections() if c.service_name == option
    }

    def click() -> DecisionRecord:
        with journey.leaving_settings(f"choosing {option} on interaction {question.id}", about=granted):
            with journey.expecting("decision-saved", f"choosing {option} on interaction {question.id}"):
                question_page(journey).choose(question.id, option, timeout=journey.shown_budget())
            return requests.record_decision(journey, question, word, f"chose {option}", choice=option)

    if gateway is None:
        return click()

    def calls_before(clicking: datetime) -> tuple[GatewayCounts, int]:
        counted = gateway.counts(before=clicking)
        return counted, counted.calls

    return requests.judged_after_the_click(
        journey, click, "gateway-calls-before-choice", calls_before, no_call_before_choice
    )


# ---- afterwards -------------------------------------------------------------------------------------


def require_native_outcome(journey: Journey, task: Task, provider: str) -> None:
    """After Not now on a native card: no provider question for the provider either."""
    found = requests.services_api(journey).interactions(task.id)
    path = journey.evidence.snapshot("interactions", found)
    journey.record_checks(judge(no_question_check, found, provider), [path])


def require_choice_outcome(
    journey: Journey,
    task: Task,
    provider: str,
    record: DecisionRecord,
    before: list[str],
    restart: PendingRestart,
    gateway: InstalledGateway | None = None,
) -> None:
    """After the choice: the agent acted on it and finished; then one question, the connections, its word, the
    gateway's count; the restart's final snapshot."""
    grade = requests.settle_after_decision(journey, task, record)
    api = requests.services_api(journey)
    outcome = ProviderOutcome(
        decision=record,
        provider=provider,
        interactions=api.interactions(task.id),
        connections_before=before,
        connections_after=connection_names(journey),
        replies_after_choice=_replies_after(journey, task, record),
        decline_grade=grade,
        gateway=gateway.counts(calls_before_choice=record.calls_before_decision) if gateway else None,
    )
    path = journey.evidence.snapshot("provider-outcome", outcome)
    interactions = journey.evidence.snapshot("interactions", outcome.interactions)
    final = keep_final_pending(journey, restart)
    evidence = [path, interactions, final] + (["snapshots/gateway-capture.jsonl"] if gateway else [])
    journey.record_checks(judge(outcome_checks, outcome), evidence)
    if gateway is not None:
        pages = {
            "task": requests.decision_page(journey).rendered_html(),
            "services": requests.services_page_html(journey),
        }
        journey.record_checks(
            judge(credential_checks, credential_sightings(gateway.fixture.credential, api.raw_reads(), pages)).reading(
                origin="harness"
            ),
            [],
        )


def _replies_after(journey: Journey, task: Task, record: DecisionRecord) -> list[str]:
    """The lead's replies on the task written after the choice was saved."""
    decided_at = datetime.fromisoformat(record.decided_at) if record.decided_at else None
    return [
        c.body
        for c in journey.api.task(task.id).agent_replies()
        if decided_at is None or datetime.fromisoformat(c.created_at) > decided_at
    ]
