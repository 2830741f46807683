"""Services, connections and the "Ask first" policy, through the public API against a real MCP service.

A real controller, the real document service fixture on loopback, the
scripted agent: what the service received is read from its own capture,
never from the product's word.
"""

from __future__ import annotations

import json
import signal
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.core.product_records import Interaction, Task
from harness.decisions.contract import EMAIL_TASK, SERVICE_NAME, document_task, notes_task
from harness.fixtures.documents import PROTECTED_ACTION, DocumentService
from harness.products.testbed import ApiClient, TestbedInstance
from tests.testbed.product_helpers import new_agent, unique


@pytest.fixture
def service(tmp_path: Path) -> Iterator[DocumentService]:
    with DocumentService(tmp_path / "capture.jsonl") as running:
        yield running


def install(api: ApiClient, service: DocumentService, agent_ids: list, policy: str = "ask_first"):
    installed = api.install_service(unique(SERVICE_NAME), service.url)
    return installed, api.add_connection(installed.id, "Team", service.credential, policy, agent_ids)


def ask(api: ApiClient, service: DocumentService, title: str) -> tuple[Task, list[Interaction]]:
    """A task asking a new agent bound to a new Ask-first connection for a document; its pending interactions."""
    agent = new_agent(api)
    installed, _ = install(api, service, [agent.id])
    task = api.create_task("Doc", document_task(title, installed.name), assignee_id=agent.id)
    return task, api.wait_for(lambda: api.interactions(task.id) or None, what="a pending interaction")


def protected_calls(service: DocumentService) -> list:
    return [e for e in service.capture() if e.tool == PROTECTED_ACTION and e.outcome == "accepted"]


def test_a_connection_keeps_its_credential_sealed_and_never_answers_it(testbed: TestbedInstance, service):
    api = testbed.api
    agent = new_agent(api)
    installed, connection = install(api, service, [agent.id])
    assert connection.agent_ids == [agent.id] and connection.policy == "ask_first"
    assert {a["name"]: a["read_only"] for a in api.request("GET", "/api/services").json()[-1]["actions"]} == {
        "list_documents": True,
        PROTECTED_ACTION: False,
    }
    secret = service.credential.encode()
    assert all(secret not in body for body in api.raw_reads().values())
    assert secret not in (testbed.data_dir / "testbed.sqlite3").read_bytes()
    assert secret not in api.request("GET", "/").content


def test_bad_service_and_connection_input_is_a_clear_4xx(testbed: TestbedInstance, service):
    api = testbed.api
    refused = api.request("POST", "/api/services", json={"name": "Far", "url": "http://example.invalid/mcp"})
    assert refused.status_code == 422 and "url" in refused.text
    installed = api.install_service(unique("Docs"), service.url)
    wrong = api.request(
        "POST", f"/api/services/{installed.id}/connections", json={"name": "x", "credential": "not-the-credential"}
    )
    assert wrong.status_code == 400 and wrong.json()["detail"].startswith("credential: the service refused it")
    ghost = api.request(
        "POST",
        f"/api/services/{installed.id}/connections",
        json={"name": "x", "credential": service.credential, "agent_ids": [999999]},
    )
    assert ghost.status_code == 400 and "agent_ids" in ghost.json()["detail"]
    assert (
        api.request(
            "POST", "/api/services/999999/connections", json={"name": "x", "credential": "12345678"}
        ).status_code
        == 404
    )
    assert api.request("POST", "/api/interactions/999999/decision", json={"decision": "approve"}).status_code == 404
    assert api.request("POST", "/api/interactions/1/decision", json={"decision": "maybe"}).status_code == 422
    rejected = [e for e in service.capture() if e.outcome == "rejected"]
    assert rejected and all(e.reason == "wrong credential" for e in rejected)


def test_approve_forwards_exactly_one_call_and_a_replay_changes_nothing(testbed: TestbedInstance, service):
    api = testbed.api
    task, pending = ask(api, service, "Launch notes")
    assert [(i.action, i.status, i.agent_id) for i in pending] == [(PROTECTED_ACTION, "pending", task.assignee_id)]
    assert protected_calls(service) == []

    first = api.decide(pending[0].id, "approve")
    assert first.status_code == 200 and first.json()["status"] == "approved"
    again = api.decide(pending[0].id, "approve")
    assert again.status_code == 200 and again.json()["decided_at"] == first.json()["decided_at"]
    assert api.decide(pending[0].id, "decline").status_code == 409
    done = api.wait_until_done(task.id)
    calls = protected_calls(service)
    assert len(calls) == 1
    assert calls[0].document_id in done.agent_replies()[-1].body
    assert api.interactions(task.id)[0].outcome == "completed"


def test_decline_forwards_nothing_and_the_agent_explains(testbed: TestbedInstance, service):
    api = testbed.api
    task, pending = ask(api, service, "Secret plans")
    declined = api.decide(pending[0].id, "decline").json()
    assert declined["status"] == "declined" and declined["decided_by"] == "user" and declined["decided_at"]
    done = api.wait_until_done(task.id)
    assert protected_calls(service) == []
    assert "declined" in done.agent_replies()[-1].body
    assert api.decide(pending[0].id, "approve").status_code == 409
    assert protected_calls(service) == []


def test_an_unbound_agent_cannot_use_a_connection(testbed: TestbedInstance, service):
    api = testbed.api
    owner, other = new_agent(api), new_agent(api)
    installed, _ = install(api, service, [owner.id])
    task = api.create_task("Doc", document_task("Not mine", installed.name), assignee_id=other.id)
    done = api.wait_until_done(task.id)
    assert "no connection" in done.agent_replies()[-1].body
    assert api.interactions(task.id) == [] and protected_calls(service) == []
    log = "".join(p.read_text(errors="replace") for p in testbed.log_paths() if p.exists())
    assert service.credential not in log and json.dumps(service.credential) not in log


def test_not_now_is_saved_and_the_same_request_is_answered_without_a_new_card(testbed: TestbedInstance):
    api = testbed.api
    agent = new_agent(api, model="asks-again-after-decline")
    connections = api.connections()
    task = api.create_task("Notes", notes_task("Notion"), assignee_id=agent.id)
    pending = api.wait_for(lambda: api.interactions(task.id) or None, what="a connection request")
    assert [(i.kind, i.provider, i.action, i.connection_id) for i in pending] == [
        ("connection_intent", "Notion", "connect", None)
    ]
    assert api.decide(pending[0].id, "decline").json()["status"] == "declined"
    done = api.wait_until_done(task.id)
    assert len(api.interactions(task.id)) == 1 and api.connections() == connections
    asked = [r for r in done.runs[-1].receipts if r.tool == "connection_request"]
    assert [r.detail for r in asked] == ["pending", "declined"]
    assert "wasn't able" in done.agent_replies()[-1].body


def test_an_email_setup_needs_chat_connectors_and_keeps_the_saved_key_sealed(fresh_testbed: TestbedInstance):
    api = fresh_testbed.api
    agent = new_agent(api)
    off = api.wait_until_done(api.create_task("Email", EMAIL_TASK, assignee_id=agent.id).id)
    assert "chat connectors are off" in off.agent_replies()[-1].body and api.interactions() == []
    assert api.set_chat_connectors(True).chat_connectors
    task = api.create_task("Email", EMAIL_TASK, assignee_id=agent.id)
    [card] = api.wait_for(lambda: api.interactions(task.id) or None, what="an email setup card")
    assert (card.kind, card.provider, card.addressed_to, card.agent_id) == (
        "email_setup",
        "AgentMail",
        "user",
        agent.id,
    )
    missing = api.decide(card.id, "approve")
    assert missing.status_code == 422 and "api_key" in missing.json()["detail"]
    key = "am_" + unique("key") * 3
    saved = api.request("POST", f"/api/interactions/{card.id}/decision", json={"decision": "approve", "api_key": key})
    assert saved.status_code == 200 and saved.json()["status"] == "approved"
    done = api.wait_until_done(task.id)
    assert "set up" in done.agent_replies()[-1].body
    [made] = api.connections()
    assert (made.service_name, made.agent_ids) == ("AgentMail", [agent.id])
    assert all(key.encode() not in body for body in api.raw_reads().values())
    assert key.encode() not in (fresh_testbed.data_dir / "testbed.sqlite3").read_bytes()
    again = api.wait_until_done(api.create_task("Email again", EMAIL_TASK, assignee_id=agent.id).id)
    assert len(api.interactions()) == 1 and "set up" in again.agent_replies()[-1].body


def test_a_decision_after_the_asking_run_ended_wakes_a_run_that_reads_it(testbed: TestbedInstance, service):
    api = testbed.api
    task, [pending] = ask(api, service, "Stopped midway")
    asking = api.run(pending.run_id)
    api.stop_run(asking.id)
    assert api.decide(pending.id, "approve").json()["status"] == "approved"
    done = api.wait_until_done(task.id)
    assert [r.status for r in done.runs] == ["cancelled", "succeeded"]
    assert len(api.interactions(task.id)) == 1 and len(protected_calls(service)) == 1
    assert protected_calls(service)[0].document_id in done.agent_replies()[-1].body


def test_an_approval_the_controller_died_before_forwarding_is_forwarded_once_on_start(
    fresh_testbed: TestbedInstance, service
):
    """Approve commits the decision, then forwards: a controller killed in between must not drop the decision."""
    api = fresh_testbed.api
    task, pending = ask(api, service, "Release notes")
    fresh_testbed.stop_controller(signal.SIGKILL)
    # What the killed controller had committed: the approval, and no forwarded call yet.
    with sqlite3.connect(fresh_testbed.data_dir / "testbed.sqlite3") as db:
        db.execute(
            "UPDATE interactions SET status = 'approved', decided_by = 'user', decided_via = 'api', "
            "decided_at = '2026-11-30T00:00:00Z' WHERE id = ? AND status = 'pending'",
            (int(pending[0].id),),
        )
    assert protected_calls(service) == []
    fresh_testbed.start()
    done = api.wait_until_done(task.id)
    calls = protected_calls(service)
    assert len(calls) == 1
    assert calls[0].document_id in done.agent_replies()[-1].body
    assert api.interactions(task.id)[0].outcome == "completed"


def test_a_hire_is_bound_to_the_connections_named_in_the_same_transaction(testbed: TestbedInstance, service):
    api = testbed.api
    lead = new_agent(api)
    _, connection = install(api, service, [lead.id])
    hired = api.request(
        "POST", "/api/agents", json={"name": unique("Morgan"), "role": "QA", "connection_ids": [connection.id]}
    )
    assert hired.status_code == 201, hired.text
    bound = next(c for c in api.connections() if c.id == connection.id).agent_ids
    assert bound == sorted([lead.id, hired.json()["id"]])


@pytest.mark.parametrize(
    ("connection_ids", "status", "message"),
    [([999_999], 400, "connection_ids: no connection with id 999999"), (["one"], 422, "connection_ids")],
)
def test_a_hire_naming_no_such_connection_is_refused_and_nothing_is_kept(
    testbed: TestbedInstance, connection_ids: list, status: int, message: str
):
    api = testbed.api
    name = unique("Nobody")
    refused = api.request("POST", "/api/agents", json={"name": name, "connection_ids": connection_ids})
    assert refused.status_code == status and message in refused.text
    assert name not in [agent.name for agent in api.agents()]
