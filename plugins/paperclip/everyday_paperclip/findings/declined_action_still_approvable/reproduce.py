"""Rejecting an "Approve tool action" card leaves its parked call pending: the Apps review queue still approves it,
and Paperclip runs the call the person declined.

Steps (public API only): a tiny MCP service on loopback counts the calls it receives; the experimental Apps are
switched on and the service is added as a remote MCP app whose write action (``create_document``) is Ask first,
for one `process` agent. An issue is assigned to the agent, whose run calls that action through Paperclip's tool
gateway: Paperclip answers 409 ``approval_required`` and posts an "Approve tool action" card. The board rejects
the card (``POST /api/issues/:id/interactions/:interactionId/reject``, what "Reject action" does). The card's
action request is then read in the review queue (``GET /api/companies/:id/tools/action-requests``) and approved
there (``POST /api/tool-gateway/action-requests/:id/approve``).

Expected: once the card is rejected, its action request is settled as rejected, the review queue refuses to
approve it, and the service never receives the call.

Run: `python reproduce.py` (exit 1: reproduced; 0: not reproduced; 2: could not run).
"""

from __future__ import annotations

import json
import shlex
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from isolated_paperclip import Paperclip, main, wait_for  # noqa: E402

TOOLS = [
    {
        "name": "list_documents",
        "description": "List the documents (read only).",
        "inputSchema": {"type": "object", "properties": {}},
        "annotations": {"readOnlyHint": True},
    },
    {
        "name": "create_document",
        "description": "Create a document.",
        "inputSchema": {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]},
        "annotations": {"readOnlyHint": False, "destructiveHint": False},
    },
]
# The agent's run: open a tool-gateway session on its issue, call create_document once, say so, exit. Its "$0" is
# the instance folder (teardown finds it there).
AGENT = r"""
import json, os, urllib.error, urllib.request
base = os.environ["PAPERCLIP_API_URL"].rstrip("/")
auth = {"Authorization": "Bearer " + os.environ["PAPERCLIP_API_KEY"], "X-Paperclip-Run-Id": os.environ["PAPERCLIP_RUN_ID"]}
def call(method, path, body=None, headers=auth):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method,
                                     headers={"content-type": "application/json", **headers})
    try:
        with urllib.request.urlopen(request) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)
issue = os.environ.get("PAPERCLIP_TASK_ID") or call("GET", "/api/agents/me/inbox-lite")[1][0]["id"]
session = call("POST", "/api/tool-gateway/sessions", {"issueId": issue})[1]
gateway = {"X-Paperclip-Tool-Gateway-Token": session["token"]}
tools = call("GET", "/api/tool-gateway/tools", headers=gateway)[1]
tool = next(t for t in tools if t.get("upstreamToolName") == "create_document")
status, answer = call("POST", "/api/tool-gateway/tools/call",
                      {"tool": tool["name"], "parameters": {"title": "Salary review"}}, headers=gateway)
print("create_document ->", status, answer.get("reasonCode"), flush=True)
call("POST", f"/api/issues/{issue}/comments", {"body": "I asked to create the document; waiting for your decision."})
"""


class Service:
    """A stateless MCP service (JSON-RPC over HTTP POST) that keeps every ``tools/call`` it receives."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                request = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
                method = request.get("method")
                if "id" not in request:  # a notification
                    self.send_response(202)
                    self.end_headers()
                    return
                if method == "initialize":
                    result: Any = {
                        "protocolVersion": "2025-03-26",
                        "capabilities": {"tools": {}},
                        "serverInfo": {"name": "Documents", "version": "1"},
                    }
                elif method == "tools/list":
                    result = {"tools": TOOLS}
                elif method == "tools/call":
                    service.calls.append(request.get("params") or {})
                    result = {"content": [{"type": "text", "text": json.dumps({"id": "DOC-0001"})}]}
                else:
                    result = {}
                body = json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/mcp"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def created(self) -> list[dict[str, Any]]:
        return [c for c in self.calls if c.get("name") == "create_document"]


def install(paperclip: Paperclip, service: Service, agent: str) -> None:
    """The service as an Ask-first app for the agent, as the Apps page sets it up."""
    company = f"/api/companies/{paperclip.company_id}"
    paperclip.request("PATCH", "/api/instance/settings/experimental", {"enableApps": True})
    app = paperclip.post(f"{company}/tools/applications", {"name": "Documents", "type": "mcp_http"})
    secret = paperclip.post(f"{company}/secrets", {"name": "Documents credential", "value": "docsvc_example"})
    header = {"name": "authorization", "secretId": secret["id"], "placement": "header", "key": "Authorization"}
    connection = paperclip.post(
        f"{company}/tools/connections",
        {
            "applicationId": app["id"],
            "name": "Documents",
            "transport": "mcp_remote",
            "authKind": "api_key",
            "transportConfig": {"url": service.url},
            "credentialRefs": [{**header, "prefix": "Bearer "}],
        },
    )
    catalog = paperclip.post(f"/api/tool-connections/{connection['id']}/catalog/refresh")["catalog"]
    writes = [e["id"] for e in catalog if e.get("isWrite") or e.get("isDestructive")]
    paperclip.post(
        f"{company}/tools/apps/{connection['id']}/finish",
        {
            "enabledCatalogEntryIds": [e["id"] for e in catalog],
            "askFirstCatalogEntryIds": writes,
            "access": {"agentIds": [agent]},
        },
    )
    print(f"app Documents at {service.url}: Ask first on {len(writes)} write action(s), for agent {agent}")


def reproduce(paperclip: Paperclip) -> tuple[bool, str]:
    service = Service()
    try:
        agent = paperclip.process_agent("Writer", f'exec python3 -c {shlex.quote(AGENT)} "$0"')
        install(paperclip, service, agent)
        issue = paperclip.assign_issue("Create the Salary review document", agent)

        def card() -> dict[str, Any] | None:
            cards = paperclip.get(f"/api/issues/{issue}/interactions")
            return next((c for c in cards if (c.get("payload") or {}).get("toolAction")), None)

        asked = wait_for("the Approve tool action card", card)
        action = asked["payload"]["toolAction"]["actionRequestId"]
        print(f"card {asked['id']} ({asked['status']}) for action request {action}; the board rejects it")
        rejected = paperclip.post(f"/api/issues/{issue}/interactions/{asked['id']}/reject", {})
        print(f"the reject answered: card status {rejected['status']!r}")
        queue = paperclip.get(f"/api/companies/{paperclip.company_id}/tools/action-requests")["actionRequests"]
        listed = any(action in json.dumps(entry) for entry in queue)
        print(f"the review queue of pending action requests {'lists' if listed else 'does not list'} it")
        calls_before = len(service.created())
        answer = paperclip.http.post(
            f"/api/tool-gateway/action-requests/{action}/approve", json={"companyId": paperclip.company_id}
        )
        print(f"approving it there answered {answer.status_code}: {answer.text[:200]}")
        after = next(c for c in paperclip.get(f"/api/issues/{issue}/interactions") if c["id"] == asked["id"])
        ran = ((after.get("result") or {}).get("toolAction") or {}).get("status")
        print(f"the card now reads {after['status']!r}, its tool action {ran!r}")
        calls = len(service.created())
        print(f"the service received {calls_before} create_document call(s) before that approval, {calls} in all")
    finally:
        service.server.shutdown()
    if answer.status_code < 400 or calls > 0:
        return True, (
            f"after the card was rejected, the review queue's approve answered {answer.status_code} and the service"
            f" received {calls} create_document call(s); expected a refusal (the request settled as rejected) and none"
        )
    return False, f"the review queue refused the declined request ({answer.status_code}) and the service got no call"


if __name__ == "__main__":
    main("Finding: a rejected tool-action card's call can still be approved in the review queue, and runs", reproduce)
