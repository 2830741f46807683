"""Decline a protected action on an installed service.

The same service, connection and server-held credential as
``service_approve``; the person declines the one waiting request in the
browser. Afterwards the service has never accepted a call, the lead has not
asked again, it has said, after the decision, that it could not do the
work, and the task is done. A colleague who then finds the request and
approves it wherever the product offers approval is refused everywhere: a
declined request stays declined.
"""

from __future__ import annotations

from harness.core.catalog import Case
from harness.core.criteria import decline_explanation
from harness.running.journey import Journey
from stories.service_approve import decide_on_document

CASE = Case(
    name="service-decline",
    needs=("services",),
    scripted_deadline_s=90,
    description="Decline an agent's protected service action: no call at all, no repeated request, an explanation.",
    criteria=(decline_explanation("the agent's protected service action"),),
)


def story(journey: Journey) -> None:
    decide_on_document(journey, "Salary review", approve=False)
