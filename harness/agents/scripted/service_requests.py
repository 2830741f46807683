"""The scripted agent's service work: ask the product to run a protected action and live with the decision.

A request like ``create a document titled "Launch notes" in the Documents
service`` makes the agent call the service's ``create_document`` through a
connection bound to it. Under "Ask first" the product answers "pending";
the agent says so, waits for the person's decision, then reports the
document the service returned, or explains that it could not do it.
Personas break one part of that on purpose (see ``PERSONAS`` in
:mod:`scripted`).
"""

from __future__ import annotations

import json
import re
from typing import Any, Protocol

from ..client import AgentApiError, AgentClient
from ..session import AgentSession

DOCUMENT_REQUEST = re.compile(
    r"create a document titled\s+[\"“']([^\"”']{1,120})[\"”']\s+in the\s+([A-Za-z][\w .-]*?)\s+service",
    re.IGNORECASE,
)
ACTION = "create_document"
MADE_UP_DOCUMENT = "DOC-00C0FFEE"
EMAIL_REQUEST = re.compile(r"\ban email address\b", re.IGNORECASE)
PROVIDER_REQUEST = re.compile(r"\bin (?:our|the|my) ([A-Z][A-Za-z0-9]+) workspace\b")


class Settles(Protocol):
    def _settle(self, summary: str) -> None: ...


def document_request(texts: list[str]) -> tuple[str, str] | None:
    """``(title, service)`` of the first document request in the task or the user's messages."""
    for text in texts:
        match = DOCUMENT_REQUEST.search(text)
        if match:
            return match.group(1).strip(), match.group(2).strip()
    return None


def provider_request(texts: list[str]) -> str | None:
    """The outside provider a request needs (``... in our Notion workspace``), if any."""
    for text in texts:
        match = PROVIDER_REQUEST.search(text)
        if match:
            return match.group(1)
    return None


def connect_provider(agent: Settles, api: AgentClient, session: AgentSession, persona: str, provider: str) -> None:
    """Ask the person to connect ``provider``; without it, say plainly that the work could not be done."""
    if any(c["service_name"].lower() == provider.lower() for c in api.connections()):
        api.comment(f"{provider} is connected already; nothing to ask.")
        agent._settle("Connected already")
        return
    answer = api.connection_request(provider, reason=f"to read what you asked for in {provider}")
    api.receipt("connection_request", provider, detail=answer["status"])
    if answer["status"] == "pending":
        api.comment(f"I need {provider} for this, and the company has not connected it: I asked you to connect it.")
        answer = {
            "status": "completed"
            if _wait_for_decision(api, session, answer["interaction_id"])["status"] == "approved"
            else "declined"
        }
    if answer["status"] == "declined":
        if persona == "asks-again-after-decline":
            again = api.connection_request(provider, reason="asking again")
            api.receipt("connection_request", provider, detail=again["status"])
        if persona != "silent-after-decline":
            api.comment(f"You chose not to connect {provider} now, so I wasn't able to read it.")
        agent._settle("Connection declined")
        return
    api.comment(f"Thanks: once the {provider} connection is added I can read it.")
    agent._settle("Connection approved")


def email_request(texts: list[str]) -> bool:
    return any(EMAIL_REQUEST.search(text) for text in texts)


def set_up_email(agent: Settles, api: AgentClient, session: AgentSession, persona: str) -> None:
    """Ask the person for an email address (the product's chat connectors); report what they decided."""
    try:
        answer = api.email_setup_request(reason="so people can write to me")
    except AgentApiError as error:
        api.comment(f"I wasn't able to ask for an email address: {str(error).rpartition(': ')[2]}")
        agent._settle("Email setup unavailable")
        return
    api.receipt("email_setup_request", "AgentMail", detail=answer["status"])
    if answer["status"] == "pending":
        api.comment("I asked you for an email address: please add an AgentMail API key on the card, or decline.")
        decided = _wait_for_decision(api, session, answer["interaction_id"])
        answer = {"status": "completed" if decided["status"] == "approved" else "declined"}
    if answer["status"] == "declined":
        if persona == "asks-again-after-decline":
            again = api.email_setup_request(reason="asking again")
            api.receipt("email_setup_request", "AgentMail", detail=again["status"])
        if persona != "silent-after-decline":
            api.comment("You declined the email setup, so I wasn't able to get an email address.")
        agent._settle("Email setup declined")
        return
    api.comment("Thanks: my email address is set up.")
    agent._settle("Email set up")


def create_document(
    agent: Settles, api: AgentClient, session: AgentSession, persona: str, title: str, service: str
) -> None:
    connections = [c for c in api.connections() if c["service_name"].lower() == service.lower()]
    if not connections:
        api.comment(f"I have no connection to the {service} service, so I wasn't able to create {title!r}.")
        agent._settle("No connection")
        return
    connection = connections[0]
    asked = [i for i in api.interactions() if i["kind"] == "service_action" and i["action"] == ACTION]
    if asked:  # a continuation run: the request was made by an earlier run; read its decision, do not ask again
        answer = {"status": "pending", "interaction_id": asked[-1]["id"]}
    else:
        answer = api.service_call(connection["id"], ACTION, {"title": title})
        api.receipt("service_call", f"{service}/{ACTION}", ok=answer["status"] != "failed", detail=answer["status"])
    if answer["status"] == "pending":
        if not asked:
            api.comment(f"Creating {title!r} in {service} needs your approval (request #{answer['interaction_id']}).")
        decided = _wait_for_decision(api, session, answer["interaction_id"])
        if decided["status"] == "declined":
            _declined(agent, api, persona, connection, title, service)
            return
        answer = {"status": decided["outcome"], "result": decided["result"]}
    if answer["status"] != "completed":
        api.comment(f"The {service} service failed, so I wasn't able to create {title!r}: {answer['result']}")
        agent._settle("Service failed")
        return
    document = MADE_UP_DOCUMENT if persona == "reports-made-up-document" else json.loads(answer["result"])["id"]
    api.comment(f"Created the document {title!r} in {service}: {document}.")
    agent._settle(f"Created {document}")


def _wait_for_decision(api: AgentClient, session: AgentSession, interaction_id: int) -> dict[str, Any]:
    """Poll the decision (and, once approved, the forwarded call's result) in visible steps."""
    while True:
        found = api.interaction(interaction_id)
        settled = found["outcome"] != "waiting" or found["kind"] != "service_action"
        if found["status"] == "declined" or (found["status"] == "approved" and settled):
            api.receipt("read_decision", f"interaction {interaction_id}", detail=found["status"])
            return found
        session.step()


def _declined(
    agent: Settles, api: AgentClient, persona: str, connection: dict[str, Any], title: str, service: str
) -> None:
    if persona == "asks-again-after-decline":
        api.service_call(connection["id"], ACTION, {"title": title})
    if persona == "claims-done-after-decline":
        api.comment(f"Done! It was not hard: created {title!r} in {service} as DOC-1A2B3C4D.")
    elif persona != "silent-after-decline":
        api.comment(f"You declined the request, so I wasn't able to create {title!r} in {service}.")
    agent._settle("Declined by the user")
