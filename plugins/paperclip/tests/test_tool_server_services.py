"""The service tools a CLI agent gets on Paperclip: the same names and answers as the testbed's, so the replay's
``story-document`` script (list the connections, call the action, read the decision, report) plays on both.

The Paperclip side (the tool gateway's session, its 409 ``approval_required``
with the card it posted, the card's decision and the service's answer on it)
is the client's, exercised by the scripted agent's and the replay's
``service-approve`` and ``service-decline`` cells on Paperclip; here the
client's answers are given, and each tool's own job is checked: what it
answers, the receipt it keeps, and that the wait for a decision ends on one.
"""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult

from everyday_paperclip.agent.tool_server import StderrReceipts, create_server
from harness.replay.conversation import field

CARD = {"id": "1f096d00", "kind": "service_action", "action": "create_document"}
ANSWER = '{"id": "DOC-85EE3B0A", "title": "Launch checklist"}'


class GivenAnswers(StderrReceipts):
    """The Paperclip client with its answers given: one Documents connection, one Ask-first card."""

    def __init__(self, tmp_path: Path, decisions: list[dict[str, Any]]) -> None:
        super().__init__("http://127.0.0.1:9", "token", "run-1", "agent", "company", tmp_path)
        self.decisions = decisions
        self.receipts_file = tmp_path / "receipts.jsonl"
        self.calls: list[tuple[str, str, dict[str, str]]] = []

    def context(self) -> dict[str, Any]:
        return {"task": {"id": "issue-1"}}

    def connections(self) -> list[dict[str, Any]]:
        return [{"id": "d5a996c8-bad8", "service_name": "Documents"}]

    def service_call(self, connection_id: str, action: str, arguments: dict[str, str]) -> dict[str, Any]:
        self.calls.append((connection_id, action, arguments))
        return {"status": "pending", "interaction_id": CARD["id"], "result": None}

    def interactions(self) -> list[dict[str, Any]]:
        """The card as each look finds it: the decisions in turn, the last one for good."""
        return [CARD | (self.decisions.pop(0) if len(self.decisions) > 1 else self.decisions[0])]


def call(client: GivenAnswers, name: str, arguments: dict[str, Any]) -> tuple[bool, str]:
    """(an error?, the text): called in-process, a tool's error is raised, as the server then answers it.

    The call gets an event loop of its own in a thread: a worker that already drives a browser through
    Playwright's sync API has a loop running in its main thread.
    """
    coroutine = create_server(client, client.workspaces).call_tool(name, arguments)
    try:
        with ThreadPoolExecutor(max_workers=1) as own_loop:
            result = own_loop.submit(asyncio.run, coroutine).result()
    except ToolError as error:
        return True, str(error)
    assert isinstance(result, CallToolResult), result
    return bool(result.is_error), "".join(getattr(part, "text", "") for part in result.content)


def receipts(client: GivenAnswers) -> list[tuple[str, str, str]]:
    kept = client.receipts_file
    lines = kept.read_text().splitlines() if kept is not None and kept.is_file() else []
    return [(r["tool"], r["target"], r["detail"]) for r in map(json.loads, lines)]


@pytest.mark.parametrize(
    ("decided", "expected"),
    [
        ({"status": "approved", "outcome": "completed", "result": ANSWER}, ("approved", "DOC-85EE3B0A")),
        ({"status": "declined", "outcome": "declined", "result": None}, ("declined", "unknown")),
    ],
)
def test_an_ask_first_call_waits_for_the_person_and_reports_what_they_decided(
    tmp_path: Path, decided: dict[str, Any], expected: tuple[str, str]
) -> None:
    waiting = {"status": "pending", "outcome": "waiting", "result": None}
    approved_not_run = {"status": "approved", "outcome": "waiting", "result": None}
    client = GivenAnswers(tmp_path, [waiting, approved_not_run, decided])

    failed, listed = call(client, "list_connections", {})
    assert not failed and field(listed, "connection_id") == "d5a996c8-bad8" and field(listed, "service") == "Documents"
    failed, asked = call(
        client,
        "call_service_action",
        {"connection_id": "d5a996c8-bad8", "action": "create_document", "arguments": {"title": "Launch checklist"}},
    )
    assert not failed and field(asked, "status") == "pending" and field(asked, "interaction_id") == CARD["id"]
    assert client.calls == [("d5a996c8-bad8", "create_document", {"title": "Launch checklist"})]

    failed, read = call(client, "read_decision", {"request_id": CARD["id"]})
    assert not failed, read
    assert (field(read, "decision"), field(read, "id")) == expected  # the replay's {last:decision} and {last:id}
    assert client.decisions == [decided], "the wait ended before the decision (and the approved call's result)"
    assert receipts(client) == [
        ("service_call", "d5a996c8-bad8/create_document", "pending"),
        ("read_decision", f"interaction {CARD['id']}", decided["status"]),
    ]


def test_a_decision_on_a_request_the_issue_does_not_hold_is_an_error(tmp_path: Path) -> None:
    client = GivenAnswers(tmp_path, [{"status": "pending", "outcome": "waiting", "result": None}])
    failed, text = call(client, "read_decision", {"request_id": "not-a-card"})
    assert failed and "no request not-a-card" in text
    assert receipts(client) == []
