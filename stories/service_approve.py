"""Approve a protected action on an installed service.

The company has the document service installed with one connection whose
policy is Ask first, bound to the lead. A person asks the lead for a new
document there. Before clicking, they find exactly one request waiting for
them, for that action on that connection, and the service has received no
call yet. They approve it in the browser. Afterwards the service has
accepted exactly one call, the lead's reply names the document the service
returned, and the task is done.
"""

from __future__ import annotations

from harness.core.catalog import Case
from harness.decisions.contract import DOCUMENT_TASK_TITLE, SERVICE_NAME, document_task
from harness.decisions.service import decide, install_document_service, require_pending_request, require_service_outcome
from harness.running.journey import Journey

CASE = Case(
    name="service-approve",
    needs=("services",),
    scripted_deadline_s=90,
    description="Approve an agent's protected service action: no call before, exactly one after, its document reported.",
)


def decide_on_document(journey: Journey, title: str, approve: bool) -> None:
    installed = install_document_service(journey)
    task = journey.create_task(DOCUMENT_TASK_TITLE, document_task(title, SERVICE_NAME))
    request = require_pending_request(journey, task, installed)
    decision = decide(journey, installed, request, approve=approve)
    require_service_outcome(journey, task, installed, decision)


def story(journey: Journey) -> None:
    decide_on_document(journey, "Launch checklist", approve=True)
