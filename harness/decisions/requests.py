"""The steps every decision story shares: see the one pending request, click, and wait for the agent's word.

Before any click the story requires exactly the request it set up, stored
and shown on one card (else it fails on ``decision.request-matches-story``
with a screenshot, and clicks nothing). The click is replayed through the
API afterwards, as a second click or a resent request would be, and must
change nothing. A decline settles on a reply by the lead's final successful
run written after the decision; that reply, as it was then, is the decline
grade's exact input.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Literal, cast

from pydantic import BaseModel

from harness.core.product_records import Interaction, Task
from harness.core.verdicts import StoryFailed
from harness.core.waiting import WaitTimeout, wait_for
from harness.decisions.rules import (
    SAVED,
    ApprovalAfterDecline,
    CheckRecord,
    DecisionRecord,
    DeclineGradeInput,
    ExpectedRequest,
    decision_saved_checks,
    request_checks,
)
from harness.judging.observations import judge
from harness.products.base import DecisionView, ProviderQuestionView, ProvidersApi, ServicesApi, ServicesDriver
from harness.running.journey import Journey
from harness.running.readbacks import shown_both

# A decline story settles on the lead's reply after the decision; a silent agent fails the explanation check
# once this much of the deadline has passed with the task finished, instead of at the attempt's deadline.
REPLY_WAIT_S = 15.0


def services_api(journey: Journey) -> ServicesApi:
    return cast(ServicesApi, journey.api)


def decision_page(journey: Journey) -> DecisionView:
    return cast(DecisionView, journey.current_page())


def require_pending_request(journey: Journey, task: Task, expected: ExpectedRequest) -> Interaction:
    """Exactly the request the story set up, stored and shown on one card; else fail before any click."""
    api = services_api(journey)

    def pending() -> list[Interaction] | None:
        return [i for i in api.interactions(task.id) if i.status == "pending"] or None

    def pending_or_rest() -> list[Interaction] | Task | None:
        current = journey.api.task(task.id)  # read first: a request made before the task came to rest is seen
        return pending() or (current if current.at_rest else None)

    found = journey.wait(pending_or_rest, f"a pending decision on task {task.id}", "decision-requested")
    if isinstance(found, Task):  # the agent finished without asking: no request will come
        journey.unmet("decision-requested", f"task {task.id} is {found.status} with nothing running and no request")
    first = found[0]
    page = decision_page(journey)
    with journey.expecting("decision-card-shown", f"the card of interaction {first.id} on task {task.id}"):
        page.wait_for_decision_card(first.id, timeout=journey.shown_budget())
    stored = pending() or []
    cards = [card for card in page.decision_cards() if card.status == "pending"]
    journey.screenshot("decision requested")
    snapshot = journey.evidence.snapshot("interactions-before-decision", {"stored": stored, "shown": cards})
    judged = judge(request_checks, stored, expected, cards, journey.lead.name)
    checks = journey.record_checks(judged, [journey.evidence.screenshots[-1], snapshot])
    failed = [check for check in checks if check.failed]
    if failed:
        raise StoryFailed(f"{failed[0].id}: {failed[0].detail}; nothing was clicked")
    return stored[0]


def decide(journey: Journey, request: Interaction, approve: bool) -> DecisionRecord:
    """Click yes or no on the card, wait for the saved decision, then replay it through the API."""
    word: Literal["approve", "decline"] = "approve" if approve else "decline"
    with journey.leaving_settings(f"{word} on interaction {request.id}"):
        with journey.expecting("decision-saved", f"clicking {word} on interaction {request.id}"):
            decision_page(journey).decide(request.id, approve, timeout=journey.shown_budget())
        return record_decision(journey, request, word, f"{word}d")


def judged_after_the_click(
    journey: Journey,
    click: Callable[[], DecisionRecord],
    snapshot: str,
    calls_before: Callable[[datetime], tuple[BaseModel, int]],
    check: Callable[[int], CheckRecord],
) -> DecisionRecord:
    """Click, then judge the calls that reached the outside service before the click, by the service's own times.

    Judged once the click is over, not when the card was read: a product that
    forwards the moment the agent asks may still be on its way to the service
    while the person reads the card, and it reaches the service before the
    click all the same. Judged even when the click fails, so a later step that
    fails cannot hide it. ``calls_before`` gives the service's counts up to a
    moment (kept as ``snapshot``) and the number of calls among them.
    """
    clicking = datetime.now(UTC)
    try:
        decided = click()
    finally:
        counted, calls = calls_before(clicking)
        path = journey.evidence.snapshot(snapshot, counted)
        journey.record_checks([check(calls)], [path])
    return decided.model_copy(update={"calls_before_decision": calls})


def record_decision(
    journey: Journey,
    request: Interaction,
    word: Literal["approve", "decline"],
    shot: str,
    choice: str | None = None,
) -> DecisionRecord:
    """After the click: wait for the saved decision, screenshot it, replay it through the API, keep the record."""
    api = services_api(journey)

    def saved() -> Interaction | None:
        found = next((i for i in api.interactions(request.task_id) if str(i.id) == str(request.id)), None)
        return found if found is not None and found.status != "pending" else None

    decided: Interaction = journey.wait(saved, f"interaction {request.id} decided", "decision-saved")
    journey.screenshot(shot)
    replay = api.decide(request.id, word) if choice is None else cast(ProvidersApi, api).choose(request.id, choice)
    after = saved() or decided
    fields = ("status", "decided_by", "decided_at", "choice")
    changed = [f for f in fields if getattr(after, f) != getattr(decided, f)]
    record = DecisionRecord(
        interaction_id=request.id,
        decision=word,
        saved_as=decided.status,
        decided_by=decided.decided_by,
        decider=request.addressed_to,
        decided_at=decided.decided_at,
        replay_status=replay.status_code,
        replay_changed=changed,
        choice=choice,
        saved_choice=decided.choice,
    )
    path = journey.evidence.snapshot("decision", record)
    journey.evidence.note(
        "decision",
        f"{choice or word} on interaction {request.id}, saved {decided.status} at {decided.decided_at}",
    )
    journey.record_checks(judge(decision_saved_checks, record), [path, journey.evidence.screenshots[-1]])
    entered_decision(journey, request, record)
    return record


def entered_decision(journey: Journey, request: Interaction, record: DecisionRecord) -> None:
    """The decision (and the option chosen), to be read back from the product's records and its card."""
    typed = {"decision": SAVED[record.decision]} | ({"choice": record.choice} if record.choice else {})

    def stored() -> dict[str, str | None]:
        found = next(
            (i for i in services_api(journey).interactions(request.task_id) if str(i.id) == str(request.id)), None
        )
        return {"decision": found.status, "choice": found.choice} if found else dict.fromkeys(typed)

    def shown(reload: bool) -> dict[str, str | None]:
        page = cast(DecisionView, journey.task_view(request.task_id, reload))
        page.wait_for_decision_card(request.id, timeout=journey.shown_budget())
        cards = [card for card in page.decision_cards() if card.interaction_id == str(request.id)]
        fields = {"decision": cards[0].status if len(cards) == 1 else None}
        if record.choice:
            fields["choice"] = cast(ProviderQuestionView, page).provider_question(request.id).choice
        return fields

    journey.entered(f"interaction {request.id}", typed, stored, shown, shown_both(typed))


def settle_after_decision(journey: Journey, task: Task, record: DecisionRecord) -> DeclineGradeInput | None:
    """Wait until the lead acted on the decision and the task finished; after a decline, for the lead's reply,
    kept as the grade's exact input.

    An agent may wait for the decision in its run, or end the run and be
    started again by the decision: either way a run of the lead must end
    after the decision before the task's state says anything about it.
    """
    decided_at = datetime.fromisoformat(record.decided_at) if record.decided_at else None

    def acted() -> bool | None:
        if decided_at is None:  # nothing to order the runs by: decision.saved-once names the missing time
            return True
        runs = [r for r in journey.api.task(task.id).runs if str(r.agent_id) == str(journey.lead.id)]
        ended = [r for r in runs if r.ended_at and datetime.fromisoformat(r.ended_at) > decided_at]
        return True if ended and not any(r.active for r in runs) else None

    journey.wait(acted, f"a run of the lead to end after the decision on task {task.id}", "task-finished")
    journey.wait_until_finished(task, "the agent after the decision")
    if record.decision != "decline":
        return None
    grade = _decline_grade(journey, task, record)
    journey.evidence.snapshot("decline-grade", grade)  # before anything later is observed
    return grade


def _decline_grade(journey: Journey, task: Task, record: DecisionRecord) -> DeclineGradeInput:
    """Wait (bounded) for a reply by the lead's final successful run on the task, written after the decision."""
    decided_at = datetime.fromisoformat(record.decided_at) if record.decided_at else None
    empty = DeclineGradeInput(
        interaction_id=record.interaction_id,
        decided_at=record.decided_at,
        settling_run_id=None,
        reply_run_id=None,
        reply=None,
    )

    def reply() -> DeclineGradeInput | None:
        current = journey.api.task(task.id)
        succeeded = [r for r in current.runs if str(r.agent_id) == str(journey.lead.id) and r.status == "succeeded"]
        if not succeeded or decided_at is None:
            return None
        final = succeeded[-1]
        after = [
            c
            for c in current.agent_replies()
            if str(c.run_id) == str(final.id) and datetime.fromisoformat(c.created_at) > decided_at
        ]
        if not after:
            return None
        return empty.model_copy(
            update={"settling_run_id": final.id, "reply_run_id": after[-1].run_id, "reply": after[-1].body}
        )

    try:
        return wait_for(reply, timeout=journey.deadline.budget(REPLY_WAIT_S), what="a reply after the decision")
    except WaitTimeout:
        return empty


def approve_after_decline(journey: Journey, task: Task, record: DecisionRecord) -> ApprovalAfterDecline:
    """A colleague finds the declined request later and approves it wherever the product offers approval.

    Tried once the agent has settled on the decline (its reply is already
    graded), so only the product is judged: every route must refuse, and
    what the service received is counted afterwards.
    """
    api = services_api(journey)
    answers = api.approve_anywhere(record.interaction_id)
    after = next((i for i in api.interactions(task.id) if str(i.id) == str(record.interaction_id)), None)
    later = ApprovalAfterDecline(
        interaction_id=record.interaction_id, answers=answers, status_after=after.status if after else None
    )
    journey.evidence.note("approval after decline", f"interaction {record.interaction_id}: {answers}")
    return later


def services_page_html(journey: Journey) -> str:
    """The page listing the installed services and their connections, opened in a page of its own."""
    page = journey.browser_context.new_page()
    try:
        return cast(ServicesDriver, journey.driver).services_page(page, journey.instance.base_url).rendered_html()
    finally:
        page.close()
