"""``python -m everyday_paperclip.agent.runner``: the scripted agent, run by Paperclip's ``process`` adapter.

The behaviour is :class:`harness.agents.scripted.agent.ScriptedAgent`, unchanged;
this module is only the thin client that lets it act through Paperclip's
agent API (``PAPERCLIP_API_URL`` with the per-run ``PAPERCLIP_API_KEY``)
instead of the testbed's. It answers the same calls with the same shapes:

- the task is the issue whose active run is this run (``inbox-lite``), checked out first;
- "new" messages are the user comments after the agent's own latest comment
  (those that woke this run), then each one not seen before;
- tool receipts are JSON lines on stdout, which Paperclip keeps as the run log;
- a delivery is a ZIP attachment on the issue;
- services are the apps Paperclip's tool gateway offers this run (a session
  bound to the issue): a call of an Ask-first action answers 409
  ``approval_required`` with the card it posted, which is the pending
  request; its decision and, once approved, what the service answered
  Paperclip keeps on the card. The agent waits for it in its run (Paperclip
  merges the decision's wake into a run that is still going).

Writes retry while the server is down (a restart is a fault the stories
inject), so the run carries on once it is back. ``--instance`` only marks the
command line, so teardown can find this process.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from harness.agents.client import RunEnded
from harness.agents.issued_secrets import LEDGER_NAME, record_run_token
from harness.agents.scripted.agent import ScriptedAgent
from harness.agents.session import AgentSession

from .markdown import markdown_text

log = logging.getLogger("everyday_paperclip.agent.runner")
RECEIPT_MARK = "EVERYDAY-RECEIPT "
# A CLI's run log is the CLI's own stream, so our tool server beside it keeps its receipts in the instance's folder:
# <instance>/receipts/<run id>.jsonl, one receipt a line (read with the log's by the driver).
RECEIPTS_FOLDER = "receipts"
RETRY_FOR_SECONDS = 10 * 60
OPEN_STATUSES = ["backlog", "todo", "in_progress", "in_review", "blocked", "done"]


class PaperclipAgentClient:
    """The calls :class:`ScriptedAgent` makes, over Paperclip's agent API, answering in the testbed's shapes."""

    def __init__(
        self, base_url: str, token: str, run_id: str, agent_id: str, company_id: str, workspaces: Path
    ) -> None:
        self.run_id = run_id
        self.workspaces = workspaces
        self.session: AgentSession | None = None
        self.agent_id = agent_id
        self.company_id = company_id
        self._http = httpx.Client(
            base_url=base_url,
            timeout=10.0,
            headers={"Authorization": f"Bearer {token}", "X-Paperclip-Run-Id": run_id},
        )
        self._seq = 0
        self._seen: set[str] = set()
        self.issue_id = ""
        self._gateway: httpx.Client | None = None
        self.base_url = base_url

    # ---- transport ----------------------------------------------------------

    def _request(self, method: str, path: str, **kwargs: Any) -> Any:
        """Until the server answers: connection errors and 5xx are retried (a restart may be under way)."""
        deadline = time.monotonic() + RETRY_FOR_SECONDS
        backoff = 0.1
        while True:
            try:
                response = self._http.request(method, path, **kwargs)
                if response.status_code < 500:
                    if response.status_code >= 400:
                        raise RuntimeError(f"{method} {path} -> {response.status_code}: {response.text[:500]}")
                    return response.json() if response.content else None
                log.warning("%s %s -> %s; retrying", method, path, response.status_code)
            except httpx.TransportError as error:
                log.warning("%s %s failed (%s); retrying", method, path, error)
            if time.monotonic() > deadline:
                raise RuntimeError(f"Paperclip unreachable for {RETRY_FOR_SECONDS} s")
            time.sleep(backoff)
            backoff = min(backoff * 2, 2.0)

    # ---- reading -------------------------------------------------------------

    def _agents(self) -> list[dict[str, Any]]:
        return self._request("GET", f"/api/companies/{self.company_id}/agents")  # type: ignore[no-any-return]

    def _comments(self, issue_id: str) -> list[dict[str, Any]]:
        comments = self._request("GET", f"/api/issues/{issue_id}/comments")
        return sorted(comments, key=lambda c: c["createdAt"])

    def _task(self, issue_id: str) -> dict[str, Any]:
        issue = self._request("GET", f"/api/issues/{issue_id}")
        names = {a["id"]: a["name"] for a in self._agents()}
        comments = [
            {
                "id": c["id"],
                "author_kind": "user" if c["authorType"] == "user" else "agent",
                "agent_id": c.get("authorAgentId"),
                "body": markdown_text(c["body"]) if isinstance(c["body"], str) else c["body"],
            }
            for c in self._comments(issue_id)
        ]
        attachments = sorted(self._request("GET", f"/api/issues/{issue_id}/attachments"), key=lambda a: a["createdAt"])
        issues = self._request("GET", f"/api/companies/{self.company_id}/issues")
        children = [
            {"id": i["id"], "assignee_name": names.get(i.get("assigneeAgentId") or "")}
            for i in sorted(issues, key=lambda i: i["createdAt"])
            if i.get("parentId") == issue_id
        ]
        runs = self._request("GET", f"/api/issues/{issue_id}/runs")
        # Paperclip lists the run that created a child under the child too: only the assignee's runs count.
        active = next(
            (
                r["runId"]
                for r in runs
                if r["status"] in ("queued", "running") and r["agentId"] == issue.get("assigneeAgentId")
            ),
            None,
        )
        last_agent = max((n for n, c in enumerate(comments) if c["author_kind"] == "agent"), default=-1)
        waiting = sum(1 for c in comments[last_agent + 1 :] if c["author_kind"] == "user")
        return {
            "id": issue["id"],
            "title": issue["title"],
            "body": markdown_text(issue.get("description") or ""),
            "status": issue["status"],
            "comments": comments,
            "children": children,
            "active_run_id": active,
            "unconsumed_user_messages": waiting,
            "deliveries": [
                {"id": a["id"], "sha256": a["sha256"]} for a in attachments if a["originalFilename"].endswith(".zip")
            ],
        }

    def context(self) -> dict[str, Any]:
        """The issue this run was woken for, checked out to it, and the agent itself."""
        inbox = self._request("GET", "/api/agents/me/inbox-lite")
        mine = [i for i in inbox if (i.get("activeRun") or {}).get("id") == self.run_id] or inbox
        if not mine:
            raise RuntimeError("no issue in the inbox for this run")
        self.issue_id = mine[0]["id"]
        self._request(
            "POST",
            f"/api/issues/{self.issue_id}/checkout",
            json={"agentId": self.agent_id, "expectedStatuses": OPEN_STATUSES},
        )
        me = self._request("GET", "/api/agents/me")
        task = self._task(self.issue_id)
        last_agent = max((n for n, c in enumerate(task["comments"]) if c["author_kind"] == "agent"), default=-1)
        self._unread = [c for c in task["comments"][last_agent + 1 :] if c["author_kind"] == "user"]
        self._seen = {c["id"] for c in task["comments"]} - {c["id"] for c in self._unread}
        task["comments"] = [c for c in task["comments"] if c["id"] in self._seen]
        if self.session is not None:  # the workspace is known only once the issue is: one folder per issue
            self.session.workspace = self.workspaces / self.issue_id
            self.session.workspace.mkdir(parents=True, exist_ok=True)
        return {"task": task, "agent": {"id": me["id"], "name": me["name"]}}

    def read_task(self, task_id: str) -> dict[str, Any]:
        return self._task(task_id)

    def inbox(self) -> list[dict[str, Any]]:
        """User comments this agent has not read yet."""
        fresh = [
            {"id": c["id"], "body": c["body"]}
            for c in self._comments(self.issue_id)
            if c["authorType"] == "user" and c["id"] not in self._seen
        ]
        self._seen.update(c["id"] for c in fresh)
        return fresh

    # ---- services (Paperclip's tool gateway) ------------------------------------

    def _tools(self) -> list[dict[str, Any]]:
        """The tools the gateway offers this run on its issue (a session is opened once)."""
        if self._gateway is None:
            session = self._request("POST", "/api/tool-gateway/sessions", json={"issueId": self.issue_id})
            self._gateway = httpx.Client(
                base_url=self.base_url, timeout=60.0, headers={"X-Paperclip-Tool-Gateway-Token": session["token"]}
            )
        answer = self._gateway.get("/api/tool-gateway/tools")
        answer.raise_for_status()
        return answer.json()  # type: ignore[no-any-return]

    def connections(self) -> list[dict[str, Any]]:
        """One entry per connection among the gateway's tools: its id and its app's name."""
        found = {
            t["connectionId"]: t.get("applicationDisplayName") or "" for t in self._tools() if t.get("connectionId")
        }
        return [{"id": cid, "service_name": name} for cid, name in found.items()]

    def service_call(self, connection_id: str, action: str, arguments: dict[str, str]) -> dict[str, Any]:
        """``{status: completed|pending|failed, interaction_id, result}``, as the testbed's service call answers."""
        tool = next(
            (
                t
                for t in self._tools()
                if t.get("connectionId") == connection_id and t.get("upstreamToolName") == action
            ),
            None,
        )
        if tool is None or self._gateway is None:
            return {"status": "failed", "interaction_id": None, "result": f"no tool {action} on connection"}
        answer = self._gateway.post(
            "/api/tool-gateway/tools/call", json={"tool": tool["name"], "parameters": arguments}
        )
        body = answer.json() if answer.content else {}
        if answer.status_code == 409 and body.get("reasonCode") == "approval_required":
            return {"status": "pending", "interaction_id": body["interactionId"], "result": None}
        if answer.status_code >= 400:
            return {"status": "failed", "interaction_id": None, "result": body.get("error") or answer.text[:300]}
        return {"status": "completed", "interaction_id": None, "result": _service_text(body.get("result") or {})}

    def interactions(self) -> list[dict[str, Any]]:
        """The tool-action cards on this run's issue, in the testbed's shape."""
        cards = self._request("GET", f"/api/issues/{self.issue_id}/interactions")
        return [_card(c) for c in sorted(cards, key=lambda c: c["createdAt"]) if _tool_action(c)]

    def interaction(self, interaction_id: str) -> dict[str, Any]:
        return next(i for i in self.interactions() if i["id"] == interaction_id)

    # ---- acting --------------------------------------------------------------

    def comment(self, body: str) -> None:
        self._request("POST", f"/api/issues/{self.issue_id}/comments", json={"body": body})

    def new_receipt(self, tool: str, target: str = "", ok: bool = True, detail: str = "") -> dict[str, Any]:
        """The next receipt of this run, in the one shape every reader of receipts parses."""
        seq, self._seq = self._seq, self._seq + 1
        return {
            "id": f"{self.run_id}-{seq}-{uuid.uuid4().hex[:8]}",
            "seq": seq,
            "tool": tool,
            "target": target,
            "ok": ok,
            "detail": detail,
            "created_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        }

    def receipt(self, tool: str, target: str = "", ok: bool = True, detail: str = "") -> str:
        """A tool receipt as one stdout line; Paperclip stores it in the run log (lost if the server is gone)."""
        record = self.new_receipt(tool, target, ok, detail)
        try:
            print(RECEIPT_MARK + json.dumps(record), flush=True)
        except (BrokenPipeError, OSError):
            log.warning("stdout is gone (the server that read it stopped); receipt %s not kept", record["id"])
        return str(record["id"])

    def set_status(self, status: str) -> None:
        self._request("PATCH", f"/api/issues/{self.issue_id}", json={"status": status})

    def continue_later(self, after_s: float, next_step: str) -> str:
        """Keep the issue in progress with a live continuation path: an issue monitor that has Paperclip wake this
        agent for the issue again once ``after_s`` seconds have passed (its execution policy's ``monitor``, which
        Paperclip's contract counts as "a real scheduled monitor ... that will wake the responsible assignee").
        The answer is the time Paperclip will look again."""
        at = datetime.now(UTC) + timedelta(seconds=after_s)
        monitor = {"nextCheckAt": at.isoformat(timespec="milliseconds").replace("+00:00", "Z"), "notes": next_step}
        issue = self._request("PATCH", f"/api/issues/{self.issue_id}", json={"executionPolicy": {"monitor": monitor}})
        return str(issue.get("monitorNextCheckAt") or monitor["nextCheckAt"])

    def create_child(self, title: str, body: str, assignee_name: str) -> str:
        assignee = next(a["id"] for a in self._agents() if a["name"].lower() == assignee_name.lower())
        payload = {
            "title": title,
            "description": body,
            "parentId": self.issue_id,
            "assigneeAgentId": assignee,
            "status": "todo",
        }
        return str(self._request("POST", f"/api/companies/{self.company_id}/issues", json=payload)["id"])

    def assign(self, assignee_name: str) -> None:
        assignee = next(a["id"] for a in self._agents() if a["name"].lower() == assignee_name.lower())
        self._request("PATCH", f"/api/issues/{self.issue_id}", json={"assigneeAgentId": assignee})

    def create_skill(self, name: str, body: str) -> str:
        """A company skill, its ``SKILL.md`` the body; the answer is its id (Paperclip logs ``company.skill_created``
        with this run's id)."""
        payload = {"name": name, "markdown": body}
        return str(self._request("POST", f"/api/companies/{self.company_id}/skills", json=payload)["id"])

    def deliver(self, data: bytes) -> None:
        self._request(
            "POST",
            f"/api/companies/{self.company_id}/issues/{self.issue_id}/attachments",
            files={"file": ("delivery.zip", data, "application/zip")},
        )

    def bill_model_call(self, cents: float, model: str) -> None:
        """A simulated model call of the scripted agent, reported as a cost event of this run (Paperclip's budgets
        count its cost events). Paperclip admits no call before it is made: the agent first asks whether it may
        still act (its run going, itself not paused), as a CLI adapter's next turn would find out, and raises
        :class:`RunEnded` when it may not."""
        me = self._request("GET", "/api/agents/me")
        run = self._request("GET", f"/api/heartbeat-runs/{self.run_id}")
        if me["status"] == "paused" or run["status"] != "running":
            raise RunEnded(f"run {self.run_id} is {run['status']}, agent {me['status']}: no model call")
        event = {
            "agentId": self.agent_id,
            "issueId": self.issue_id or None,
            "heartbeatRunId": self.run_id,
            "provider": "scripted",
            "model": model,
            "inputTokens": 1000,
            "outputTokens": 200,
            "costCents": round(cents),
            "occurredAt": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        }
        self._request("POST", f"/api/companies/{self.company_id}/cost-events", json=event)

    def flush(self) -> None:
        """Every write above is synchronous."""

    def finish(self, outcome: str, summary: str = "", error_code: str | None = None, cost_cents: int = 0) -> None:
        """Paperclip ends the run when this process exits; the outcome is the exit code."""
        self.outcome = outcome


def _tool_action(card: dict[str, Any]) -> dict[str, Any] | None:
    return (card.get("payload") or {}).get("toolAction") if card["kind"] == "request_confirmation" else None


def _card(card: dict[str, Any]) -> dict[str, Any]:
    """A tool-action card as the scripted agent reads a request: kind, action, status, outcome, result."""
    action = _tool_action(card) or {}
    ran = (card.get("result") or {}).get("toolAction") or {}
    status = {"pending": "pending", "accepted": "approved"}.get(card["status"], "declined")
    outcome = {"executed": "completed", "failed": "failed"}.get(str(ran.get("status")), "waiting")
    summary = ran.get("resultSummary") or ran.get("errorMessage")
    return {
        "id": card["id"],
        "kind": "service_action",
        "action": action.get("toolDisplayName"),
        "status": status,
        "outcome": outcome,
        "result": _service_text(json.loads(summary)) if summary and summary.startswith("{") else summary,
    }


def _service_text(result: dict[str, Any]) -> str:
    """The service's own text out of the gateway's result (``{"content": <text>, "data": ...}``)."""
    content = result.get("content")
    return content if isinstance(content, str) else json.dumps(result)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m everyday_paperclip.agent.runner")
    parser.add_argument("--instance", required=True, help="the instance folder: marks this process for teardown")
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(process)d %(name)s %(levelname)s %(message)s"
    )
    env = os.environ
    # The harness cannot see the token Paperclip minted for this run; our agent tells it, for its evidence scan.
    record_run_token(Path(args.instance) / LEDGER_NAME, env["PAPERCLIP_RUN_ID"], env["PAPERCLIP_API_KEY"])
    client = PaperclipAgentClient(
        env["PAPERCLIP_API_URL"],
        env.pop("PAPERCLIP_API_KEY"),
        env["PAPERCLIP_RUN_ID"],
        env["PAPERCLIP_AGENT_ID"],
        env["PAPERCLIP_COMPANY_ID"],
        Path(env["EVERYDAY_WORKSPACES"]),
    )
    session = AgentSession(
        client=client,  # type: ignore[arg-type]  # the same calls as the testbed's client, over Paperclip's API
        workspace=client.workspaces,
        model=env.get("EVERYDAY_MODEL", "default"),
        pace=float(env.get("EVERYDAY_PACE", "0.05")),
        run_id=env["PAPERCLIP_RUN_ID"],
    )
    client.session = session
    log.info("run %s: pid %s model %s", session.run_id, os.getpid(), session.model)
    try:
        ScriptedAgent().run(session)
    except Exception:
        log.exception("agent failed")
        return 1
    return 0 if getattr(client, "outcome", "succeeded") == "succeeded" else 1


if __name__ == "__main__":
    raise SystemExit(main())
