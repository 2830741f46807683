"""The product's MCP tool server, called the way an agent CLI calls it: streamable HTTP with the run's token.

A real controller, a real run (the scripted agent, slowed so it is still
working), the official MCP client. What the tools do is checked through the
public API, as a user would see it.
"""

from __future__ import annotations

import asyncio
import io
import json
import signal
import threading
import zipfile
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from harness.products.testbed import TestbedInstance
from harness.testbed.__main__ import GRACEFUL_SHUTDOWN_S
from tests.testbed.product_helpers import new_agent, runner_token, start_build


async def _call(url: str, token: str, calls: list[tuple[str, dict]]) -> list[tuple[bool, str]]:
    async with create_mcp_http_client(headers={"authorization": f"Bearer {token}"}) as client:
        async with (
            streamable_http_client(url, http_client=client) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            names = {tool.name for tool in (await session.list_tools()).tools}
            assert {"read_task", "comment", "deliver", "create_child_task", "set_status", "wait_for_task"} <= names
            results = []
            for name, arguments in calls:
                result = await session.call_tool(name, arguments)
                results.append((bool(result.is_error), "".join(getattr(part, "text", "") for part in result.content)))
            return results


def call(instance: TestbedInstance, token: str, *calls: tuple[str, dict]) -> list[tuple[bool, str]]:
    """In a thread of its own: Playwright's sync API may have left an event loop running in this one."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, _call(instance.base_url + "/mcp/", token, list(calls))).result()


@pytest.mark.pace(1.0)
def test_tools_act_as_the_run_through_the_product(fresh_testbed):
    api = fresh_testbed.api
    task, run = start_build(api)
    token = runner_token(run.identity.pid)
    teammate = new_agent(api)
    api.send_message(task.id, "A note from the user.")
    results = call(
        fresh_testbed,
        token,
        ("read_task", {}),
        ("comment", {"body": "Hello from MCP."}),
        ("deliver", {"files": ["slugify.py"]}),
        ("deliver", {"files": ["../etc/passwd"]}),
        ("create_child_task", {"title": "Help", "body": "Please help.", "assignee_name": teammate.name}),
        ("create_child_task", {"title": "Help", "body": "Please help.", "assignee_name": "Nobody"}),
        ("set_status", {"status": "in_review"}),
    )
    read, commented, delivered, refused, child, unknown, status = results
    view = json.loads(read[1])
    assert view["id"] == task.id and [m["text"] for m in view["new_messages"]] == ["A note from the user."]
    assert not commented[0] and not delivered[0] and not child[0] and not status[0]
    assert refused[0] and "not a file in the workspace" in refused[1]
    assert unknown[0] and "no agent named 'Nobody'" in unknown[1]
    current = api.task(task.id)
    assert any(c.body == "Hello from MCP." and c.run_id == run.id for c in current.comments)
    assert [m.consumed_by_run_id for m in current.user_messages()] == [run.id]
    mcp_delivery = next(d for d in current.deliveries if d.run_id == run.id)
    assert zipfile.ZipFile(
        io.BytesIO(httpx.get(fresh_testbed.base_url + mcp_delivery.download_url).content)
    ).namelist() == ["slugify.py"]
    assert [c.assignee_name for c in current.children] == [teammate.name]


def test_a_request_without_a_live_run_token_is_refused(testbed):
    response = httpx.post(
        testbed.base_url + "/mcp/",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"authorization": "Bearer tbrun_not-a-token", "accept": "application/json, text/event-stream"},
    )
    assert response.status_code == 401


@pytest.mark.pace(1.0)
def test_decision_tools_ask_the_user_and_hand_back_the_result(fresh_testbed, tmp_path):
    from harness.fixtures.documents import PROTECTED_ACTION, DocumentService

    api = fresh_testbed.api
    with DocumentService(tmp_path / "capture.jsonl") as fixture:
        task, run = start_build(api)
        service = api.install_service("Docs", fixture.url)
        connection = api.add_connection(service.id, "Team", fixture.credential, "ask_first", [task.assignee_id])
        token = runner_token(run.identity.pid)
        listed, read_only, asked = call(
            fresh_testbed,
            token,
            ("list_connections", {}),
            ("call_service_action", {"connection_id": connection.id, "action": "list_documents"}),
            (
                "call_service_action",
                {"connection_id": connection.id, "action": PROTECTED_ACTION, "arguments": {"title": "T"}},
            ),
        )
        assert fixture.credential not in listed[1]
        [shown] = json.loads(listed[1])
        assert shown["connection_id"] == connection.id and {a["name"] for a in shown["actions"]} == {
            "list_documents",
            PROTECTED_ACTION,
        }
        assert json.loads(read_only[1])["status"] == "completed"
        pending = json.loads(asked[1])
        assert pending["status"] == "pending" and not [e for e in fixture.capture() if e.tool == PROTECTED_ACTION]
        api.decide(pending["interaction_id"], "approve")
        [decided] = call(fresh_testbed, token, ("read_decision", {"request_id": pending["interaction_id"]}))
        answer = json.loads(decided[1])
        assert answer["decision"] == "approved" and answer["outcome"] == "completed"
        [created] = [e.document_id for e in fixture.capture() if e.tool == PROTECTED_ACTION]
        assert created in answer["result"]
        intent, email = call(
            fresh_testbed, token, ("request_connection", {"provider": "Notion"}), ("request_email_setup", {})
        )
        assert json.loads(intent[1])["status"] == "pending"
        assert email[0] and "chat connectors are off" in email[1]


@pytest.mark.pace(1.0)
def test_provider_tools_read_the_catalog_ask_which_provider_and_read_the_choice(fresh_testbed):
    api = fresh_testbed.api
    task, run = start_build(api)
    token = runner_token(run.identity.pid)
    catalog, asked, again = call(
        fresh_testbed,
        token,
        ("list_providers", {}),
        ("request_connection", {"provider": "HubSpot", "reason": "a contact"}),
        ("request_connection", {"provider": "HubSpot"}),
    )
    assert {e["name"]: e["native"] for e in json.loads(catalog[1])} == {"Jira": True, "HubSpot": False}
    pending = json.loads(asked[1])
    assert pending["status"] == "pending" and json.loads(again[1])["interaction_id"] == pending["interaction_id"]
    api.choose(pending["interaction_id"], "None").raise_for_status()
    listed, decided = call(
        fresh_testbed,
        token,
        ("list_requests", {}),
        ("read_decision", {"request_id": pending["interaction_id"]}),
    )
    [request] = json.loads(listed[1])
    assert (request["kind"], request["status"], request["choice"]) == ("provider_question", "declined", "None")
    assert json.loads(decided[1])["choice"] == "None"
    assert len(api.interactions(task.id)) == 1


async def _wait_in_a_tool(url: str, token: str, task_id: int, waiting: threading.Event) -> None:
    """An agent's long tool call in progress (wait_for_task on a task that is still being worked on)."""
    try:
        async with create_mcp_http_client(headers={"authorization": f"Bearer {token}"}) as client:
            async with (
                streamable_http_client(url, http_client=client) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                call = asyncio.ensure_future(
                    session.call_tool("wait_for_task", {"task_id": task_id, "max_seconds": 120})
                )
                await asyncio.sleep(1.0)  # the request is with the controller by now (it answers in milliseconds)
                waiting.set()
                await call
    except Exception:  # the controller went away under it: what this test does on purpose
        waiting.set()


@pytest.mark.pace(5.0)
def test_a_tool_call_in_progress_does_not_hold_a_graceful_stop(fresh_testbed: TestbedInstance) -> None:
    """A SIGTERM stops the controller although a CLI's tool call is still waiting (it once waited on it for minutes)."""
    task, run = start_build(fresh_testbed.api)
    waiting = threading.Event()
    url, token = fresh_testbed.base_url + "/mcp/", runner_token(run.identity.pid)
    with ThreadPoolExecutor(1) as pool:
        held = pool.submit(asyncio.run, _wait_in_a_tool(url, token, task.id, waiting))
        assert waiting.wait(60), "the tool call never started"
        fresh_testbed.stop_controller(signal.SIGTERM, timeout=GRACEFUL_SHUTDOWN_S + 7)
        held.result(timeout=60)
