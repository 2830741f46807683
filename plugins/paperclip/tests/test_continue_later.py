"""The disposition a CLI agent leaves on Paperclip when its run ends with work open: an issue monitor that has
Paperclip wake it again for the issue, set through the issue's public PATCH route as the run (Paperclip's contract
counts a scheduled monitor as a live continuation path; a comment alone is not one). The product side, that
Paperclip takes the work up through it, is played by the replay-claude budget-stop cell on Paperclip."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx

from everyday_paperclip.agent.runner import PaperclipAgentClient


def test_continue_later_schedules_an_issue_monitor_on_the_runs_issue(tmp_path: Path) -> None:
    sent: list[httpx.Request] = []

    def paperclip(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        monitor = json.loads(request.content)["executionPolicy"]["monitor"]
        return httpx.Response(200, json={"id": "issue-1", "monitorNextCheckAt": monitor["nextCheckAt"]})

    client = PaperclipAgentClient("http://paperclip.invalid", "token", "run-1", "agent-1", "company-1", tmp_path)
    client._http = httpx.Client(base_url="http://paperclip.invalid", transport=httpx.MockTransport(paperclip))
    client.issue_id = "issue-1"
    before = datetime.now(UTC).replace(microsecond=0)  # the time is sent to the millisecond
    at = client.continue_later(30, "Write the README and the tests.")
    [request] = sent
    assert (request.method, request.url.path) == ("PATCH", "/api/issues/issue-1")
    body = json.loads(request.content)
    assert list(body) == ["executionPolicy"]  # the status stays as it is: in progress
    monitor = body["executionPolicy"]["monitor"]
    assert monitor["notes"] == "Write the README and the tests."
    due = datetime.fromisoformat(monitor["nextCheckAt"].replace("Z", "+00:00"))
    assert before + timedelta(seconds=30) <= due <= datetime.now(UTC) + timedelta(seconds=30)
    assert at == monitor["nextCheckAt"]
