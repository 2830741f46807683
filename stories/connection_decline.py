"""Decline a new connection.

The company has no connections. A person asks the lead for something that
lives in Notion. They find one request to connect Notion waiting for them,
and click Not now. Afterwards their answer is saved, no connection exists,
the lead has not asked again, it has said why it could not do the work, and
the task is done.
"""

from __future__ import annotations

from harness.core.catalog import Case
from harness.core.criteria import decline_explanation
from harness.decisions.connection import require_intent_outcome, require_no_connections, require_pending_intent
from harness.decisions.contract import NOTES_TASK_TITLE, NOTION, notes_task
from harness.decisions.requests import decide
from harness.running.journey import Journey

CASE = Case(
    name="connection-decline",
    needs=("connection-requests",),
    scripted_deadline_s=90,
    description="Not now on an agent's request to connect Notion: saved, no connection, asked once, explained.",
    criteria=(decline_explanation("connecting the service"),),
)


def story(journey: Journey) -> None:
    before = require_no_connections(journey)
    task = journey.create_task(NOTES_TASK_TITLE, notes_task(NOTION))
    request = require_pending_intent(journey, task, NOTION)
    decision = decide(journey, request, approve=False)
    require_intent_outcome(journey, task, NOTION, before, decision)
