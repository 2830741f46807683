"""``python -m everyday_paperclip.agent.tool_server``: the agent's work tools on Paperclip, as a stdio MCP server.

A real agent CLI on the testbed works through the testbed's MCP tools
(``testbed/mcp_tools.py``); on Paperclip, whose ``codex_local`` adapter
runs the CLI, the same tools (same names, same words) act through
Paperclip's agent API instead, with the run's own credentials: the CLI
starts this server and hands it ``PAPERCLIP_API_URL``, ``PAPERCLIP_API_KEY``
(the run's token) and the run, agent and company ids, which Paperclip put
in the CLI's environment. It is the CLI agent's counterpart of
``runner`` (the scripted agent's) and reuses its client.

Stdout is the MCP channel, so nothing else may print there: the client's
tool receipts are logged to stderr, which the CLI keeps, not to the run log.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import sys
import time
from pathlib import Path
from typing import Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from harness.agents.issued_secrets import LEDGER_NAME, record_run_token
from harness.agents.receipts import read_detail
from harness.agents.workspace import DeliveryError, zip_workspace
from harness.agents.workspace_watch import WorkspaceWatch

from .runner import RECEIPTS_FOLDER, PaperclipAgentClient

log = logging.getLogger("everyday_paperclip.agent.tool_server")
SERVER_NAME = "everyday"
# A wait ends before the CLIs' own limit on one tool call (codex: tool_timeout_sec 300; Claude Code: MCP_TOOL_TIMEOUT).
WAIT_LIMIT_S = 290.0
WAIT_POLL_S = 2.0
INSTRUCTIONS = """\
Tools for the Paperclip issue you were woken for: read it and the user's new
comments, comment, deliver your work as a ZIP attachment, delegate to a
teammate through a child issue and wait for it, add a company skill, use the
company's connected services (a protected action waits for the user's
decision), set the issue's status, or leave it in progress and be woken
for it again later."""
# How often a wait for the user's decision looks again.
DECISION_POLL_S = 0.5


class StderrReceipts(PaperclipAgentClient):
    """The Paperclip client, with its receipts in a file of the instance's (stdout carries the MCP protocol, and
    the run log Paperclip keeps is the CLI's own stream), and on stderr for the CLI's log."""

    receipts_file: Path | None = None

    def receipt(self, tool: str, target: str = "", ok: bool = True, detail: str = "") -> str:
        log.info("receipt %s %s %s %s", tool, target, ok, detail)
        record = self.new_receipt(tool, target, ok, detail)
        if self.receipts_file is not None:
            self.receipts_file.parent.mkdir(parents=True, exist_ok=True)
            with self.receipts_file.open("a") as out:
                out.write(json.dumps(record) + "\n")
        return str(record["id"])


def client_from_environment(env: dict[str, str]) -> StderrReceipts:
    return StderrReceipts(
        env["PAPERCLIP_API_URL"],
        env["PAPERCLIP_API_KEY"],
        env["PAPERCLIP_RUN_ID"],
        env["PAPERCLIP_AGENT_ID"],
        env["PAPERCLIP_COMPANY_ID"],
        Path(env.get("EVERYDAY_WORKSPACES", os.getcwd())),
    )


def create_server(client: StderrReceipts, workspace: Path) -> MCPServer:
    """The tool server for one run: the issue is the one Paperclip woke this run for."""
    server: MCPServer = MCPServer(SERVER_NAME, instructions=INSTRUCTIONS)
    state: dict[str, Any] = {}

    def issue() -> str:
        if "issue" not in state:
            try:
                state["issue"] = client.context()["task"]["id"]
            except RuntimeError as error:
                raise ToolError(str(error)) from None
        return str(state["issue"])

    def product(call: Any) -> Any:
        try:
            return call()
        except (RuntimeError, DeliveryError) as error:
            raise ToolError(str(error)) from None

    @server.tool(structured_output=False)
    def read_task(task_id: str | None = None) -> str:
        """Read your issue (or one of its child issues, by id): its request, conversation, deliveries and children.

        Reading your own issue also hands you the user's new comments (under "new_messages").
        """
        own = issue()
        if task_id is not None and task_id != own:
            return json.dumps(product(lambda: client.read_task(task_id)), indent=1)
        fresh = product(client.inbox)
        view = product(lambda: client.read_task(own))
        view["new_messages"] = [{"id": m["id"], "text": m["body"]} for m in fresh]
        client.receipt("read_task", f"issue {own}", detail=read_detail([m["id"] for m in fresh]))
        return json.dumps(view, indent=1)

    @server.tool(structured_output=False)
    def comment(body: str) -> str:
        """Post a comment on your issue, for the user to read."""
        issue()
        product(lambda: client.comment(body))
        return "comment posted"

    @server.tool(structured_output=False)
    def deliver(files: list[str] | None = None) -> str:
        """Deliver your work: a ZIP of every file in your working folder, or only of `files` (paths relative to it)."""
        issue()
        data = product(lambda: zip_workspace(workspace, files))
        product(lambda: client.deliver(data))
        return f"delivery stored: sha256 {hashlib.sha256(data).hexdigest()}"

    @server.tool(structured_output=False)
    def create_child_task(title: str, body: str, assignee_name: str) -> str:
        """Delegate: create a child issue of your issue, assigned to the teammate named `assignee_name`."""
        issue()
        child = product(lambda: client.create_child(title, body, assignee_name))
        return f"child task {child} created for {assignee_name}"

    @server.tool(structured_output=False)
    def wait_for_task(task_id: str | None = None, max_seconds: float = WAIT_LIMIT_S) -> str:
        """Wait until a child issue (by id; by default every child issue of yours) is done with nothing left
        running or unread, then read it, its deliveries included (or give up after max_seconds)."""
        own = issue()
        deadline = time.monotonic() + min(max_seconds, WAIT_LIMIT_S)
        while True:
            ids = [task_id] if task_id else [c["id"] for c in product(lambda: client.read_task(own))["children"]]
            children = [product(lambda child_id=child_id: client.read_task(child_id)) for child_id in ids]
            finished = all(
                child["status"] == "done"
                and child["active_run_id"] is None
                and child["unconsumed_user_messages"] == 0
                and child["deliveries"]
                for child in children
            )
            if (children and finished) or time.monotonic() > deadline:
                return json.dumps(children, indent=1) if children else "you have no child issues"
            time.sleep(WAIT_POLL_S)

    @server.tool(structured_output=False)
    def create_skill(name: str, body: str) -> str:
        """Add a skill to the company library: a `name` (its heading) and a markdown `body`. Create each skill once."""
        issue()
        made = product(lambda: client.create_skill(name, body))
        return f"skill {made} created"

    @server.tool(structured_output=False)
    def list_connections() -> str:
        """The service connections you may use on this issue: their ids and services (never a credential)."""
        issue()
        found = product(client.connections)
        return json.dumps([{"connection_id": c["id"], "service": c["service_name"]} for c in found], indent=1)

    @server.tool(structured_output=False)
    def call_service_action(connection_id: str, action: str, arguments: dict[str, str] | None = None) -> str:
        """Run an action of a connected service. A protected action may first need the user's approval: then
        you get a request id; read_decision(request_id) tells you the decision and, once approved, the result."""
        issue()
        answer = product(lambda: client.service_call(connection_id, action, arguments or {}))
        client.receipt(
            "service_call", f"{connection_id}/{action}", ok=answer["status"] != "failed", detail=answer["status"]
        )
        return json.dumps(answer)

    @server.tool(structured_output=False)
    def read_decision(request_id: str, max_seconds: float = WAIT_LIMIT_S) -> str:
        """Wait (up to max_seconds) until the user decided on your request, then read the decision and any result."""
        issue()
        deadline = time.monotonic() + min(max_seconds, WAIT_LIMIT_S)
        while True:
            found = next((i for i in product(client.interactions) if i["id"] == request_id), None)
            if found is None:
                raise ToolError(f"your issue has no request {request_id}")
            if found["status"] == "declined" or (found["status"] == "approved" and found["outcome"] != "waiting"):
                client.receipt("read_decision", f"interaction {request_id}", detail=found["status"])
                break
            if time.monotonic() > deadline:
                break
            time.sleep(DECISION_POLL_S)
        answer = {"request_id": found["id"], "decision": found["status"], "outcome": found["outcome"]}
        return json.dumps(answer | {"result": found["result"]})

    @server.tool(structured_output=False)
    def continue_later(after_seconds: int, next_step: str) -> str:
        """Leave your issue in progress with work still to do: Paperclip wakes you for it again once after_seconds
        have passed (an issue monitor), to carry on with next_step. Your issue's comments say what is done."""
        own = issue()
        at = product(lambda: client.continue_later(after_seconds, next_step))
        return f"issue {own} stays in progress; Paperclip wakes you for it again at {at}"

    @server.tool(structured_output=False)
    def set_status(status: Literal["in_progress", "in_review", "blocked", "done"]) -> str:
        """Set your issue's status: "done" when the work is delivered and nothing is left to do."""
        own = issue()
        product(lambda: client.set_status(status))
        return f"issue {own} is {status}"

    return server


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m everyday_paperclip.agent.tool_server")
    parser.add_argument("--instance", required=True, help="the instance folder: marks this process for teardown")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(name)s %(message)s")
    # The CLI's run token, told to the harness for its evidence scan (Paperclip mints it; nobody else sees it).
    record_run_token(Path(args.instance) / LEDGER_NAME, os.environ["PAPERCLIP_RUN_ID"], os.environ["PAPERCLIP_API_KEY"])
    workspace = Path(os.environ.get("EVERYDAY_WORKSPACE") or os.getcwd())
    client = client_from_environment(dict(os.environ))
    client.receipts_file = Path(args.instance) / RECEIPTS_FOLDER / f"{os.environ['PAPERCLIP_RUN_ID']}.jsonl"
    server = create_server(client, workspace)

    def saved(name: str, digest: str) -> None:  # the CLI writes files with its own tools: seen from outside
        client.receipt("write_file", name, detail=f"sha256 {digest}")

    with WorkspaceWatch(workspace, saved):
        server.run("stdio")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
