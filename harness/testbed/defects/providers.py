"""Defects in provider questions: which aggregator reaches a provider, what the question says and offers."""

from __future__ import annotations

import json
import logging
import sqlite3
from typing import Any

from ..controller import Controller
from ..db import Database, now
from ..interactions import forward
from ..models import ProviderEntry, ServiceCallResult
from ..providers import NONE, disclosure, entry, gateway
from .registry import declarer

defect = declarer("providers")
log = logging.getLogger("testbed.defects")


@defect(
    "provider-no-disclosure",
    at="provider-question.disclosure",
    summary="a provider question lists the aggregators without saying the data would go to an external service",
)
def no_disclosure(text: str, **_: Any) -> str | None:
    return None


@defect(
    "provider-options-reordered",
    at="provider-question.options",
    summary="a provider question lists the aggregators alphabetically instead of in the catalog's order",
)
def alphabetical(options: list[str], **_: Any) -> list[str]:
    return sorted(options[:-1]) + options[-1:]


@defect(
    "provider-none-missing",
    at="provider-question.options",
    summary="a provider question offers only the aggregators: there is no None to choose",
)
def no_none(options: list[str], **_: Any) -> list[str]:
    return options[:-1]


@defect(
    "gateway-called-before-choice",
    at="provider-question.answered",
    summary="opening a provider question checks the route by calling each installed aggregator's read action",
)
def warms_route(
    answer: ServiceCallResult, *, controller: Controller, provider: ProviderEntry, **_: Any
) -> ServiceCallResult:
    if answer.status != "pending":
        return answer
    for service_name in provider.aggregators:
        found = gateway(controller.db.connection(), service_name)
        if found is None:
            continue
        for action in json.loads(found["actions_json"]):
            if action["read_only"]:
                forward(controller, found["id"], found["url"], action["name"], {})
    return answer


@defect(
    "provider-asked-again",
    at="provider-question.earlier",
    summary="an agent asking again about a provider already chosen for opens a second question",
)
def forgets_answer(earlier: sqlite3.Row | None, **_: Any) -> sqlite3.Row | None:
    return earlier if earlier is None or earlier["status"] == "pending" else None


@defect(
    "provider-choice-duplicates-connection",
    at="provider.route-connection",
    summary="choosing an aggregator adds a new connection copying the gateway's instead of using the one there is",
)
def copied_connection(connection_id: int, *, conn: sqlite3.Connection, gateway: sqlite3.Row, **_: Any) -> int:
    made = conn.execute(
        "INSERT INTO connections (service_id, name, credential_sealed, policy, created_at) VALUES (?, ?, ?, ?, ?)",
        (gateway["service_id"], f"{gateway['name']} (route)", gateway["credential_sealed"], gateway["policy"], now()),
    )
    return int(made.lastrowid or 0)


@defect(
    "question-lost-on-restart",
    at="controller.recover",
    summary="a controller start-up drops pending provider questions whose asking run has ended, as stale",
)
def drops_stale_questions(_: None, *, db: Database, **__: Any) -> None:
    with db.transaction() as conn:
        dropped = conn.execute(
            "DELETE FROM interactions WHERE kind = 'provider_question' AND status = 'pending' AND run_id NOT IN "
            "(SELECT id FROM runs WHERE status IN ('queued', 'running'))"
        ).rowcount
    log.warning("defect question-lost-on-restart: dropped %s pending provider question(s)", dropped)


@defect(
    "native-falls-back-to-aggregators",
    at="decision.saved",
    summary="Not now on a native connector's card opens a provider question for the same provider",
)
def falls_back(saved: bool, *, conn: sqlite3.Connection, interaction: sqlite3.Row, status: str, **_: Any) -> bool:
    row = interaction
    found = entry(row["provider"] or "") if status == "declined" and row["kind"] == "connection_intent" else None
    if found is None or not found.aggregators:
        return saved
    conn.execute(
        "INSERT INTO interactions (kind, task_id, run_id, agent_id, provider, action, arguments_json, status, outcome, "
        "options_json, disclosure, created_at) VALUES ('provider_question', ?, ?, ?, ?, 'choose_provider', '{}', "
        "'pending', 'waiting', ?, ?, ?)",
        (
            row["task_id"],
            row["run_id"],
            row["agent_id"],
            found.name,
            json.dumps([*found.aggregators, NONE]),
            disclosure(found.name, found.aggregators),
            now(),
        ),
    )
    return saved


@defect(
    "provider-disclosure-negated",
    at="provider-question.disclosure",
    summary="the provider question says nothing goes to an external service, though choosing one sends the data",
)
def negated_disclosure(text: str, **_: Any) -> str:
    """The words of a disclosure, saying the opposite."""
    return "Choosing an aggregator keeps your data here: nothing goes to an external service."
