"""The scripted agent and outside providers: ask once, end the run, and act on the answer in the next run.

A request like ``look up "dana@example.com" in our HubSpot workspace`` names a
provider the product's catalog knows. The agent asks the product for it:
a native provider (Jira) gets its connection card, one without a connector
(HubSpot) gets the person's provider question. Either way the agent says
what it asked and ends its run; the person's answer wakes the next run,
which reads the saved answer and never asks again. After an aggregator was
chosen it looks the contact up once through the connection the product
bound to it and reports the record id the gateway returned; after None or
Not now it says plainly what it could not do. Personas break one part of
that on purpose (see ``PERSONAS`` in :mod:`scripted`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..client import AgentClient
from .service_requests import Settles

LOOK_UP_ACTION = "hubspot_look_up_contact"
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
MADE_UP_CONTACT = {"id": "HS-00C0FFEE00", "name": "Jordan Example"}
ASKS = ("connection_intent", "provider_question")


def catalog_entry(api: AgentClient, provider: str) -> dict[str, Any] | None:
    """The product's catalog entry for ``provider`` (None when the product does not know it)."""
    return next((e for e in api.providers() if e["name"].lower() == provider.lower()), None)


def reach_provider(agent: Settles, api: AgentClient, persona: str, provider: str, texts: list[str]) -> None:
    """First run: ask and end the run. A run woken by the answer: act on the saved answer."""
    asked = [i for i in api.interactions() if i["kind"] in ASKS and (i["provider"] or "").lower() == provider.lower()]
    if not asked:
        answer = api.connection_request(provider, reason=f"to do what you asked in {provider}")
        api.receipt("connection_request", provider, detail=answer["status"])
        asked = [api.interaction(answer["interaction_id"])]
    question = asked[0]
    if question["status"] == "pending":
        _wait_for_answer(api, question)
        return
    api.receipt("read_decision", f"interaction {question['id']}", detail=question["choice"] or question["status"])
    declined = question["status"] == "declined"
    if declined and persona == "asks-again-after-decline":
        again = api.connection_request(provider, reason="asking again")
        api.receipt("connection_request", provider, detail=again["status"])
    if question["kind"] == "connection_intent":
        if declined:
            api.comment(f"You chose not to connect {provider} now, so I wasn't able to read it.")
        else:
            api.comment(f"Thanks: once the {provider} connection is added I can read it.")
        agent._settle("Connection declined" if declined else "Connection approved")
        return
    if declined:
        if persona == "makes-up-contact":
            api.comment(f"Found the {provider} contact: {MADE_UP_CONTACT['name']}, record {MADE_UP_CONTACT['id']}.")
        elif persona == "makes-up-record-number":
            api.comment(f"You chose None, but I found the {provider} contact anyway: record 88123.")
        else:
            api.comment(f"You chose None, so I did not reach {provider} and wasn't able to look the contact up.")
        agent._settle("No provider chosen")
        return
    _look_up(agent, api, persona, provider, question, texts)


def _wait_for_answer(api: AgentClient, question: dict[str, Any]) -> None:
    """Say what was asked, and end the run: the person's answer starts the next one."""
    if question["kind"] == "provider_question":
        api.comment(
            f"{question['provider']} has no built-in connector here: I asked you which provider may reach it "
            f"({', '.join(question['options'])}). I will go on once you choose."
        )
    else:
        api.comment(
            f"I need {question['provider']} for this, and the company has not connected it: I asked you to connect "
            "it. I will go on once you answer."
        )
    api.set_status("blocked")
    api.receipt("wait_for_user", f"interaction {question['id']}")
    api.finish("succeeded", f"Waiting for the answer to interaction {question['id']}")


def _look_up(
    agent: Settles, api: AgentClient, persona: str, provider: str, question: dict[str, Any], texts: list[str]
) -> None:
    """One read through the connection the chosen aggregator gave this agent; report the record it returned."""
    if question["outcome"] != "completed":
        api.comment(f"{question['choice']} could not reach {provider}, so I wasn't able to look the contact up.")
        agent._settle("Route failed")
        return
    if persona == "makes-up-contact":
        api.comment(f"Found the {provider} contact: {MADE_UP_CONTACT['name']}, record {MADE_UP_CONTACT['id']}.")
        agent._settle("Contact reported")
        return
    route = json.loads(question["result"])
    email = next((m.group(0) for text in texts if (m := EMAIL.search(text))), "")
    answer = api.service_call(int(route["connection_id"]), LOOK_UP_ACTION, {"email": email})
    api.receipt("service_call", f"{route['service']}/{LOOK_UP_ACTION}", ok=answer["status"] == "completed")
    if answer["status"] != "completed":
        api.comment(f"{question['choice']} failed, so I wasn't able to look the contact up: {answer['result']}")
        agent._settle("Look-up failed")
        return
    contact = json.loads(answer["result"])
    if persona == "forgets-contact-marker":
        api.comment(f"Found the {provider} contact {contact['name']} through {question['choice']}.")
    elif persona == "adds-invented-marker":
        api.comment(f"Found the {provider} contact {contact['name']}: record {contact['id']}, and also HS-FFFFFFFFFF.")
    else:
        api.comment(
            f"Found the {provider} contact {contact['name']} ({contact['email']}) through {question['choice']}: "
            f"record {contact['id']}."
        )
    agent._settle("Contact reported")
