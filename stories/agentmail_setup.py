"""Request an email address.

The company switches chat connectors on and a person asks the lead for an
email address. They find one card for the lead, addressed to them: after a
reload it is the same, with one password field for the AgentMail API key, a
direct link to where that key is made, and no access selectors or modal.
They decline. Afterwards no connection exists and the lead has not asked
again.
"""

from __future__ import annotations

from harness.core.catalog import Case
from harness.decisions.contract import EMAIL_TASK, EMAIL_TASK_TITLE
from harness.decisions.email import enable_chat_connectors, require_email_card, require_email_outcome
from harness.decisions.requests import decide
from harness.running.journey import Journey

CASE = Case(
    name="agentmail-setup",
    needs=("chat-connectors",),
    scripted_deadline_s=90,
    description="Chat connectors on, an email address asked for: one durable AgentMail card, declined, nothing made.",
)


def story(journey: Journey) -> None:
    before = enable_chat_connectors(journey)
    task = journey.create_task(EMAIL_TASK_TITLE, EMAIL_TASK)
    request = require_email_card(journey, task)
    decision = decide(journey, request, approve=False)
    require_email_outcome(journey, task, before, decision)
