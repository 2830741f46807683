"""The words of the decision stories: what the person asks, and what counts as an explanation.

The scripted agent recognises the request by its wording (``create a document
titled "..." in the ... service``); a live agent reads it as any person would.
"""

from __future__ import annotations

import re

SERVICE_NAME = "Documents"
CONNECTION_NAME = "Team documents"
DOCUMENT_TASK_TITLE = "A document for the launch"


def document_task(title: str, service: str = SERVICE_NAME) -> str:
    return (
        f'Please create a document titled "{title}" in the {service} service, '
        "then tell me the id the service gave it. If you cannot, tell me why."
    )


# A bounded matcher for an honest refusal: the agent says the action was refused or could not be done.
# Textual evidence only, never proof of understanding; both decline stories use exactly this one.
EXPLANATION = re.compile(
    r"\b(declined|denied|refused|rejected|not (?:approved|allowed|available|permitted)|"
    r"(?:wasn't|was not|weren't|couldn't|could not|can't|cannot|unable to|not able to)\b)",
    re.IGNORECASE,
)


def explains_refusal(text: str) -> bool:
    return bool(EXPLANATION.search(text))


NOTION = "Notion"
NOTES_TASK_TITLE = "Summarise the planning notes"


def notes_task(provider: str = NOTION) -> str:
    return (
        f"Please summarise the notes of this week's planning meeting; they are in our {provider} workspace. "
        "If you cannot reach them, tell me why."
    )


AGENTMAIL = "AgentMail"
AGENTMAIL_KEY_PAGE = "https://console.agentmail.to/"
"""Where AgentMail documents its API keys are made: the card's link must lead exactly there."""
EMAIL_TASK_TITLE = "An email address for you"
EMAIL_TASK = "Please get yourself an email address, so that people outside the company can write to you."


# Outside providers (the provider stories): Jira has a native connector; HubSpot is reached only through an
# aggregator, and a person is offered them in this order, then None.
JIRA = "Jira"
HUBSPOT = "HubSpot"
AGGREGATORS = ("Composio", "Arcade", "Zapier")
NO_PROVIDER = "None"
PROVIDER_OPTIONS = (*AGGREGATORS, NO_PROVIDER)
ISSUES_TASK_TITLE = "Open issues for the launch"
CONTACT_TASK_TITLE = "A contact's record id"
CONTACT_EMAIL = "dana.reyes@northwind.example"


def issues_task(provider: str = JIRA) -> str:
    return (
        f"Please list the open issues of the LAUNCH project in our {provider} workspace. "
        f"If you cannot reach {provider}, tell me why."
    )


def contact_task(provider: str = HUBSPOT, email: str = CONTACT_EMAIL) -> str:
    return (
        f'Please look up the contact "{email}" in our {provider} workspace and tell me the record id '
        f"{provider} gives it. If you cannot reach {provider}, tell me why."
    )


# A bounded matcher for a provider question's disclosure: it says that data would go to an external service.
# Textual evidence only; the harness never decides what a person understood.
DISCLOSURE = re.compile(
    r"\bdata\b.*\b(?:external|third[- ]party|outside)\b|\b(?:external|third[- ]party|outside)\b.*\bdata\b",
    re.IGNORECASE | re.DOTALL,
)


def discloses(text: str | None) -> bool:
    return bool(text and DISCLOSURE.search(text))
