"""Rules for reaching an outside provider: the native card, the provider question, the choice and what followed.

The facts are the interactions the product stored, the question's card as
the person saw it, the connections before and after, the agent's replies
after the choice, and the gateway's own count of the calls it received
(its capture, never the product's word). Each check's name says what the
product or the agent did wrong when it fails.
"""

from __future__ import annotations

from pydantic import BaseModel

from harness.core.product_records import Interaction, ProviderQuestionCard
from harness.core.records import CheckRecord
from harness.core.references import CONTACT_MARKER as MARKER
from harness.decisions.contract import PROVIDER_OPTIONS, claimed_ids, discloses
from harness.decisions.rules import DecisionRecord, DeclineGradeInput, explanation_check

QUESTION_KIND = "provider_question"


def question_checks(stored: Interaction, shown: ProviderQuestionCard) -> list[CheckRecord]:
    """Before anything is chosen: the aggregators in the catalog's order then None, and the disclosure, both as
    the product stored the question and as the person sees it."""
    want = list(PROVIDER_OPTIONS)
    options_ok = stored.options == want and shown.options == want
    disclosed = discloses(stored.disclosure) and discloses(shown.disclosure)
    return [
        CheckRecord(
            id="provider.question-options",
            passed=options_ok,
            detail=f"stored {stored.options}, shown {shown.options}"
            + ("" if options_ok else f"; the person must be offered {want}"),
        ),
        CheckRecord(
            id="provider.question-discloses",
            passed=disclosed,
            detail=f"shown: {shown.disclosure[:200]!r}"
            if disclosed
            else "the question does not say that choosing an aggregator sends data to an external service "
            f"(stored {stored.disclosure!r}, shown {shown.disclosure!r})",
        ),
    ]


def question_survived_check(
    before: Interaction | None,
    after: Interaction | None,
    shown_before: ProviderQuestionCard | None,
    shown_after: ProviderQuestionCard | None,
) -> CheckRecord:
    """The pending question, stored and as a reload shows it, is the same after the controller restart."""
    stored_same = after is not None and after.status == "pending" and after == before
    shown_same = shown_after is not None and shown_after == shown_before
    if stored_same and shown_same:
        detail = f"question {after.id if after else '?'} still pending, stored and shown as before the restart"
    elif after is None:
        detail = "the question is no longer stored after the restart"
    elif not stored_same:
        detail = f"stored before {before}; after {after}"
    else:
        detail = f"shown before {shown_before}; after a reload {shown_after}"
    return CheckRecord(id="provider.question-survived-restart", passed=stored_same and shown_same, detail=detail)


def questions_for(interactions: list[Interaction], provider: str) -> list[Interaction]:
    return [i for i in interactions if i.kind == QUESTION_KIND and (i.provider or "").lower() == provider.lower()]


def no_question_check(interactions: list[Interaction], provider: str) -> CheckRecord:
    """A provider with a native connector is never routed through a provider question."""
    found = questions_for(interactions, provider)
    return CheckRecord(
        id="provider.no-question",
        passed=not found,
        detail=f"{len(found)} provider question(s) for {provider}"
        + (f" (interaction {', '.join(str(i.id) for i in found)})" if found else ""),
    )


class GatewayCounts(BaseModel):
    """The gateway's own record of the look-up action: accepted calls before the choice and in all."""

    marker: str  # this attempt's contact marker, made by the gateway when it started
    calls_before_choice: int | None
    calls: int
    markers_returned: list[str]
    rejected_requests: int


class ProviderOutcome(BaseModel):
    """After the choice: what the product stored, the connections, the agent's word and the gateway's count."""

    decision: DecisionRecord
    provider: str
    interactions: list[Interaction]
    connections_before: list[str]
    connections_after: list[str]
    replies_after_choice: list[str]
    decline_grade: DeclineGradeInput | None = None
    gateway: GatewayCounts | None = None


def no_call_before_choice(calls: int) -> CheckRecord:
    """The look-ups that reached the gateway before the person's click (``harness.decisions.providers.choose`` counts them)."""
    return CheckRecord(
        id="gateway.no-call-before-choice",
        passed=calls == 0,
        detail=f"the gateway accepted {calls} look-up(s) before the person chose",
    )


def outcome_checks(outcome: ProviderOutcome) -> list[CheckRecord]:
    """One question; after None nothing made up and nothing connected; after an aggregator one call, its marker."""
    asked = questions_for(outcome.interactions, outcome.provider)
    checks = [
        CheckRecord(
            id="provider.one-question",
            passed=len(asked) == 1,
            detail=f"{len(asked)} provider question(s) for {outcome.provider} on the task",
        )
    ]
    if outcome.decision.decision == "decline":
        new = sorted(set(outcome.connections_after) - set(outcome.connections_before))
        made_up = sorted({m for reply in outcome.replies_after_choice for m in claimed_ids(reply)})
        checks += [
            CheckRecord(
                id="connection.none-created",
                passed=outcome.connections_after == outcome.connections_before,
                detail=f"connections changed after None: {', '.join(new) or outcome.connections_after}"
                if outcome.connections_after != outcome.connections_before
                else "no connection created or changed",
            ),
            explanation_check(outcome.decline_grade),
            CheckRecord(
                id="provider.no-made-up-result",
                passed=not made_up,
                detail=f"after None the agent reported {outcome.provider} record(s) {made_up} nobody read"
                if made_up
                else f"no {outcome.provider} record in {len(outcome.replies_after_choice)} reply(ies) after None",
            ),
        ]
        return checks
    gateway = outcome.gateway
    assert gateway is not None, "an aggregator was chosen: the story installed its gateway"
    after = gateway.calls - (gateway.calls_before_choice or 0)
    mentioned = sorted({m for reply in outcome.replies_after_choice for m in MARKER.findall(reply)})
    checks += [
        CheckRecord(
            id="gateway.one-call-after-choice",
            passed=after == 1,
            detail=f"the gateway accepted {after} look-up(s) after the choice, {gateway.calls} in all "
            f"({gateway.rejected_requests} unauthenticated request(s) refused, never counted)",
        ),
        CheckRecord(
            id="gateway.reply-has-marker",
            passed=mentioned == [gateway.marker] and gateway.marker in gateway.markers_returned,
            detail=f"the replies after the choice name {mentioned or 'no record'}; "
            f"this attempt's gateway returned {gateway.markers_returned or 'nothing'}",
        ),
        CheckRecord(
            id="provider.no-duplicate-connection",
            passed=outcome.connections_after == outcome.connections_before,
            detail="the choice used the gateway's connection; no other was created"
            if outcome.connections_after == outcome.connections_before
            else f"connections before {outcome.connections_before}, after {outcome.connections_after}",
        ),
    ]
    return checks
