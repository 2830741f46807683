"""The provider catalog and provider questions, through the public API on real controllers.

A real controller, the scripted agent and, where a route is chosen, the
real Arcade gateway fixture on loopback: what the gateway received is read
from its own capture, never from the product's word.
"""

from __future__ import annotations

import json
import signal
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from harness.core.product_records import Interaction, Task
from harness.decisions.contract import CONTACT_EMAIL, HUBSPOT, JIRA, PROVIDER_OPTIONS, contact_task, issues_task
from harness.fixtures.gateway import GATEWAY_NAME, ArcadeGateway
from harness.products.testbed import ApiClient, TestbedInstance
from harness.testbed.db import Database
from tests.testbed.product_helpers import new_agent

pytestmark = pytest.mark.e2e  # starts a real product in the test


@pytest.fixture
def gateway(tmp_path: Path) -> Iterator[ArcadeGateway]:
    with ArcadeGateway(tmp_path / "gateway-capture.jsonl") as running:
        yield running


def ask(api: ApiClient, body: str) -> tuple[Task, Interaction]:
    """A task for a new agent; the one pending request it opens, once its asking run has ended."""
    task = api.create_task("Provider", body, assignee_id=new_agent(api).id)
    ended = api.wait_for_task(task.id, lambda t: bool(t.runs) and not t.runs[0].active, 30, "the asking run to end")
    [pending] = api.interactions(task.id)
    return ended, pending


def live(instance: TestbedInstance, task: Task) -> str:
    return httpx.get(f"{instance.base_url}/tasks/{task.id}/live").text


def test_the_catalog_is_data_the_api_serves(api: ApiClient) -> None:
    catalog = {entry.name: entry for entry in api.providers()}
    assert catalog[JIRA].native and catalog[JIRA].aggregators == ["Composio", "Arcade", "Zapier"]
    assert not catalog[HUBSPOT].native and catalog[HUBSPOT].aggregators == ["Composio", "Arcade", "Zapier"]


def test_a_native_provider_gets_its_connection_card_and_no_question(testbed: TestbedInstance) -> None:
    api = testbed.api
    task, card = ask(api, issues_task(JIRA))
    assert (card.kind, card.provider, card.status) == ("connection_intent", JIRA, "pending")
    assert "provider-option" not in live(testbed, task)
    api.decide(card.id, "decline")
    done = api.wait_until_done(task.id)
    assert [i.kind for i in api.interactions(task.id)] == ["connection_intent"]
    assert len(done.runs) == 2 and "wasn't able" in done.agent_replies()[-1].body


def test_a_provider_question_lists_the_aggregators_then_none_with_its_disclosure(testbed: TestbedInstance) -> None:
    api = testbed.api
    task, question = ask(api, contact_task(HUBSPOT))
    assert (question.kind, question.provider, question.status) == ("provider_question", HUBSPOT, "pending")
    assert question.options == list(PROVIDER_OPTIONS)
    assert question.disclosure and "external service" in question.disclosure
    page = live(testbed, task)
    assert [page.index(f'value="{option}"') for option in PROVIDER_OPTIONS] == sorted(
        page.index(f'value="{option}"') for option in PROVIDER_OPTIONS
    )
    assert question.disclosure in page
    assert api.task(task.id).status == "blocked" and len(task.runs) == 1  # the agent asked and ended its run


def test_none_is_saved_once_connects_nothing_and_the_agent_says_why(testbed: TestbedInstance) -> None:
    api = testbed.api
    before = api.connections()
    task, question = ask(api, contact_task(HUBSPOT))
    assert api.choose(question.id, "Nowhere").status_code == 422  # not one of its options
    mismatched = api.request(
        "POST", f"/api/interactions/{question.id}/decision", json={"decision": "approve", "choice": "None"}
    )
    assert mismatched.status_code == 422 and "decline" in mismatched.json()["detail"]
    assert api.choose(question.id, "None").status_code == 200
    assert api.choose(question.id, "None").status_code == 200  # the same answer again changes nothing
    other = api.choose(question.id, GATEWAY_NAME)
    assert other.status_code == 409 and "None" in other.json()["detail"]
    done = api.wait_until_done(task.id)
    [saved] = api.interactions(task.id)
    assert (saved.status, saved.choice, saved.outcome) == ("declined", "None", "declined")
    assert api.connections() == before
    assert len(done.runs) == 2 and "None" in done.agent_replies()[-1].body


def test_arcade_routes_through_the_installed_gateway_once(fresh_testbed: TestbedInstance, gateway) -> None:
    api = fresh_testbed.api
    service = api.install_service(GATEWAY_NAME, gateway.url)
    connection = api.add_connection(service.id, "Arcade gateway", gateway.credential, "ask_first", [])
    task, question = ask(api, contact_task(HUBSPOT))
    assert gateway.look_ups() == []  # nothing reaches the gateway while the person has not chosen
    assert api.choose(question.id, GATEWAY_NAME).status_code == 200
    assert api.choose(question.id, GATEWAY_NAME).status_code == 200
    done = api.wait_until_done(task.id)
    [routed] = api.interactions(task.id)
    assert (routed.status, routed.choice, routed.outcome) == ("approved", GATEWAY_NAME, "completed")
    assert json.loads(routed.result or "{}")["connection_id"] == connection.id
    [only] = api.connections()
    assert only.id == connection.id and only.agent_ids == [task.assignee_id]
    [call] = gateway.look_ups()
    assert call.marker == gateway.marker and gateway.marker in done.agent_replies()[-1].body
    assert CONTACT_EMAIL in done.agent_replies()[-1].body
    assert all(gateway.credential.encode() not in body for body in api.raw_reads().values())


def test_an_aggregator_the_company_has_not_installed_fails_the_route_plainly(testbed: TestbedInstance) -> None:
    api = testbed.api
    task, question = ask(api, contact_task(HUBSPOT))
    assert api.choose(question.id, "Zapier").status_code == 200
    done = api.wait_until_done(task.id)
    [saved] = api.interactions(task.id)
    assert (saved.status, saved.outcome) == ("approved", "failed") and "not installed" in (saved.result or "")
    assert "wasn't able" in done.agent_replies()[-1].body


def test_a_pending_question_survives_a_restart_and_a_reload_shows_it_as_it_was(fresh_testbed: TestbedInstance):
    api = fresh_testbed.api
    task, question = ask(api, contact_task(HUBSPOT))
    shown = live(fresh_testbed, task)
    before = api.controller().instance_id
    fresh_testbed.stop_controller(signal.SIGTERM)
    fresh_testbed.start()
    assert api.controller().instance_id != before
    assert api.interactions(task.id) == [question]
    assert live(fresh_testbed, task) == shown
    assert api.choose(question.id, "None").status_code == 200  # answered after the restart, saved once
    api.wait_until_done(task.id)
    assert [i.choice for i in api.interactions(task.id)] == ["None"]


def test_an_older_data_folder_gains_provider_questions_keeping_its_interactions(tmp_path: Path) -> None:
    path = tmp_path / "testbed.sqlite3"
    Database(path)  # the current schema, then turned into the older one below
    conn = sqlite3.connect(path)
    conn.executescript(
        "DROP TABLE interactions; CREATE TABLE interactions (id INTEGER PRIMARY KEY, kind TEXT NOT NULL CHECK "
        "(kind IN ('service_action','connection_intent','email_setup')), task_id INTEGER NOT NULL, run_id INTEGER "
        "NOT NULL, agent_id INTEGER NOT NULL, addressed_to TEXT NOT NULL DEFAULT 'user', connection_id INTEGER, "
        "provider TEXT, action TEXT NOT NULL, arguments_json TEXT NOT NULL, status TEXT NOT NULL, decided_by TEXT, "
        "decided_via TEXT, decided_at TEXT, outcome TEXT NOT NULL, result TEXT, created_at TEXT NOT NULL);"
        "INSERT INTO interactions (kind, task_id, run_id, agent_id, provider, action, arguments_json, status, "
        "outcome, created_at) VALUES ('connection_intent', 1, 1, 1, 'Notion', 'connect', '{}', 'declined', "
        "'declined', 'then');"
    )
    conn.close()
    db = Database(path)
    [kept] = db.all("SELECT provider, status, options_json, choice FROM interactions")
    assert tuple(kept) == ("Notion", "declined", "[]", None)
    db.connection().execute("PRAGMA foreign_keys=OFF")  # no task 1 here: only the kind is under test
    with db.transaction() as written:
        written.execute(
            "INSERT INTO interactions (kind, task_id, run_id, agent_id, action, arguments_json, status, outcome, "
            "created_at) VALUES ('provider_question', 1, 1, 1, 'choose_provider', '{}', 'pending', 'waiting', 'now')"
        )
    assert db.one("SELECT COUNT(*) AS n FROM interactions")["n"] == 2  # type: ignore[index]


def test_the_agent_reads_the_catalog_and_bad_choices_are_a_clear_4xx(testbed: TestbedInstance) -> None:
    api = testbed.api
    task, question = ask(api, contact_task(HUBSPOT))
    missing = api.request("POST", f"/api/interactions/{question.id}/decision", json={"decision": "decline"})
    assert missing.status_code == 422 and missing.json()["detail"].startswith("choice: one of Composio, Arcade")
    too_long = api.request(
        "POST", f"/api/interactions/{question.id}/decision", json={"decision": "decline", "choice": "x" * 41}
    )
    assert too_long.status_code == 422
    assert api.interactions(task.id) == [question]  # nothing saved by a refused answer
    assert api.request("GET", f"/api/agent/runs/{task.runs[0].id}/providers").status_code == 401


def test_an_answer_given_while_the_asking_run_still_runs_starts_the_next_run(testbed: TestbedInstance) -> None:
    api = testbed.api
    task = api.create_task("Provider", contact_task(HUBSPOT), assignee_id=new_agent(api).id)
    [question] = api.wait_for(lambda: api.interactions(task.id) or None, what="a provider question")
    assert api.choose(question.id, "None").status_code == 200  # at once: the asking run may still be ending
    done = api.wait_until_done(task.id)
    assert "None" in done.agent_replies()[-1].body
    # The answer is acted on once: by the next run, or by the asking run itself when the answer came before it read
    # the question again (then it never chose to wait, and one run is right).
    readers = [r.status for r in done.runs if any(receipt.tool == "read_decision" for receipt in r.receipts)]
    waited = any(receipt.tool == "wait_for_user" for receipt in done.runs[0].receipts)
    assert readers == ["succeeded"] and [r.status for r in done.runs] == (
        ["succeeded", "succeeded"] if waited else ["succeeded"]
    )
