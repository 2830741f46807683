"""Paperclip's tool-action cards in harness records: as its API stores them, as its page shows them, and what a
decision on one does to the record of the run that asked.

The inputs are what the pinned release (2026.824.1) answered and rendered
for an Ask-first ``create_document`` call of the document service fixture;
the real thing is judged end to end by the ``service-approve`` and
``service-decline`` cells on Paperclip.
"""

from __future__ import annotations

import json
from typing import Any

from everyday_paperclip.api import _cause
from everyday_paperclip.apps import _interaction, service_text
from everyday_paperclip.pages import _decision_card

SERVICE_ANSWER = '{"id": "DOC-85EE3B0A", "title": "Launch checklist"}'
RESULT_SUMMARY = json.dumps({"content": SERVICE_ANSWER, "data": {"isError": False, "transport": "mcp_http"}})


def card(status: str = "pending", **result: Any) -> dict[str, Any]:
    return {
        "id": "1f096d00",
        "issueId": "105858c7",
        "kind": "request_confirmation",
        "status": status,
        "sourceRunId": None,
        "createdByAgentId": "fe3f2eba",
        "addresseeAgentId": None,
        "resolvedByUserId": None if status == "pending" else "local-board",
        "resolvedAt": None if status == "pending" else "2026-12-04T18:07:11.604Z",
        "title": "Approve tool action",
        "payload": {
            "toolAction": {
                "toolName": "mcp.documents-d5a996c8:create-document",
                "toolDisplayName": "create_document",
                "connectionId": "d5a996c8-bad8",
                "appDisplayName": "Documents",
            }
        },
        "result": result or None,
        "createdAt": "2026-12-04T18:05:38.046Z",
    }


def test_a_pending_tool_action_card_is_a_service_action_of_the_run_that_asked() -> None:
    found = _interaction(card(), {"fe3f2eba": "Lead"}, {"1f096d00": "4eca0965"})
    assert (found.kind, found.action, found.service_name, found.connection_id) == (
        "service_action",
        "create_document",
        "Documents",
        "d5a996c8-bad8",
    )
    assert (found.status, found.outcome, found.run_id, found.agent_name, found.addressed_to) == (
        "pending",
        "waiting",
        "4eca0965",
        "Lead",
        "user",
    )


def test_an_approved_card_carries_what_the_service_answered_and_a_declined_one_nothing() -> None:
    ran = {"outcome": "accepted", "toolAction": {"status": "executed", "resultSummary": RESULT_SUMMARY}}
    approved = _interaction(card("accepted", **ran), {}, {})
    assert (approved.status, approved.outcome, approved.result, approved.decided_by) == (
        "approved",
        "completed",
        SERVICE_ANSWER,
        "user",  # the board user who clicked (local-board), in the words the request is addressed with
    )
    declined = _interaction(card("rejected", outcome="rejected"), {}, {})
    assert (declined.status, declined.outcome, declined.result) == ("declined", "declined", None)
    expired = _interaction(card("expired"), {}, {})
    assert (expired.status, expired.outcome) == ("declined", "expired")
    assert service_text("not json") == "not json"
    by_agent = card("accepted", **ran) | {"resolvedByUserId": None, "resolvedByAgentId": "fe3f2eba"}
    assert _interaction(by_agent, {"fe3f2eba": "Lead"}, {}).decided_by == "Lead"  # not the person it asked


CARD_TEXT = """CONFIRMATION
/
AWAITING APPROVAL
Approve tool action

mcp.documents-d5a996c8:create-document requires approval before Paperclip will execute it.

Human only — Only a person on the board can respond — agents cannot resolve this card.
Dec 4
proposed by Lead
D
create_document
WRITE
Documents · mcp.documents-d5a996c8:create-document

It can change something, so we’re checking with you first.

Title: Launch checklist

TECHNICAL DETAILS
Approval expires in 60 min · auto-declines if not answered
Approve & run
Decline
Approving runs this action now."""


def test_the_card_as_shown_names_the_action_service_agent_and_buttons_but_no_connection() -> None:
    shown = _decision_card("1f096d00", CARD_TEXT, ["TECHNICAL DETAILS", "Approve & run", "Decline"], "")
    assert (shown.kind, shown.action, shown.service, shown.agent, shown.addressed_to, shown.status) == (
        "service_action",
        "create_document",
        "Documents",
        "Lead",
        "user",
        "pending",
    )
    assert shown.connection_id is None
    assert shown.buttons == {"approve": "Approve & run", "decline": "Decline"}
    # Decline opened: its confirmation's second Decline is the same answer, not a second button to offer.
    opened = _decision_card("1f096d00", CARD_TEXT, ["Approve & run", "Decline", "Cancel", "Decline"], "For Morgan")
    assert opened.buttons == {"approve": "Approve & run", "decline": "Decline"} and opened.addressed_to == "Morgan"
    decided = _decision_card("1f096d00", CARD_TEXT.replace("AWAITING APPROVAL", "EXECUTED"), [], "")
    assert (decided.status, decided.buttons) == ("approved", {})
    other = _decision_card("2", "CONFIRMATION\n/\nAWAITING APPROVAL\nPlan review\nApprove plan", ["Approve plan"], "")
    assert other.kind == "" and other.buttons == {"approve": "Approve plan"}


def test_a_run_whose_context_a_decision_reached_says_why_it_started_only_by_its_own_invocation_source() -> None:
    """Paperclip merges a card decision's wake (reason ``issue_commented``) into the asking run's context; the run's
    invocation source is its own (service-decline's one run, 2026-12-06: source ``issue.interaction.reject``, invoked
    for its ``assignment``)."""
    assert _cause({"wakeReason": "issue_assigned", "source": "issue.create"}) == "assignment"
    assert _cause({"wakeReason": "issue_commented", "source": "issue.interaction.accept"}) is None
    assert _cause({"wakeReason": "issue_commented", "source": "issue.interaction.reject"}, "assignment") == "assignment"
    assert _cause({"wakeReason": "issue_commented", "source": "issue.interaction.reject"}, "automation") is None
    assert _cause({"wakeReason": "issue_commented", "source": "issue.comment"}) == "user_message"


def test_a_continuation_says_why_by_the_run_it_takes_up() -> None:
    """Paperclip's stranded-issue recovery wakes the agent with ``issue_continuation_needed`` and names the run it
    continues: budget-stop's and agent-controls' runs after the resume (2026-12-06) took up a paused run."""
    continuation = {"wakeReason": "issue_continuation_needed", "source": "issue.continuation_recovery"}
    assert _cause(continuation, "automation", ("cancelled", "budget_paused")) == "resumed"
    assert _cause(continuation, "automation", ("cancelled", "paused_by_user")) == "resumed"
    assert _cause(continuation, "automation", ("failed", "process_lost")) == "recovery"
    assert _cause(continuation, "automation", ("cancelled", "stopped_by_user")) == "handoff"
    assert _cause(continuation, "automation") == "handoff"  # it names no run
