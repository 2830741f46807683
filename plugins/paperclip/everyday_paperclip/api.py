"""httpx client for Paperclip's public (board) API, answering in the harness's product records.

Paperclip's JSON is richer and named differently; this is the one place it
is translated. Where Paperclip has no field for what a record needs, the
mapping says what stands in for it:

- a message is *consumed* by the first run that received it, by Paperclip's
  own records of each run: either a run's stored log shows a read step that
  listed it (the agent read the issue's thread while it ran), or Paperclip
  woke the run with it (the run's ``contextSnapshot`` lists the comment ids
  its wake delivered), whichever came first (see ``_receivers``). Any other
  run Paperclip woke for it is a second hand-over (``Comment.woke_run_ids``);
- a *delivery* is a ZIP attachment on the issue; its run is the run of the
  uploading agent on that issue that was active when it was uploaded;
- tool *receipts* are the ``EVERYDAY-RECEIPT`` lines the scripted agent
  prints, read back from the run log Paperclip stores (it appends each
  chunk as it arrives, so they are visible while the run goes on);
- a run *stopped by the user* is a run cancelled by a board user (Paperclip's
  ``resultJson.cancelledByActorType``);
- a run *re-adopted* after a controller restart is one whose
  ``resultJson.hotRestart.adopted`` Paperclip set, shown as ``run_adopted`` activity;
- a run's *cause* is the reason Paperclip woke the agent (``contextSnapshot.wakeReason``, see ``WAKE_CAUSES``);
- the *workspace* is the folder the harness gave the scripted agent (Paperclip
  has no workspace API for ``process`` agents), read from disk;
- services, connections and their approval cards are Paperclip's Apps and
  tool-action cards (:mod:`.apps`);
- a *skill* is a company skill: its body is its ``SKILL.md`` (``markdown``),
  its version the revision number of its current version;
- routines are Paperclip's routines (:mod:`.routines`).
"""

from __future__ import annotations

import hashlib
import json
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from everyday_paperclip.agent.markdown import markdown_text
from everyday_paperclip.agent.runner import RECEIPT_MARK, RECEIPTS_FOLDER
from everyday_paperclip.agent_clis import (
    CLAUDE_KEY_VARIABLE,
    KEY_VARIABLE,
    claude_local_config,
    codex_local_config,
)
from everyday_paperclip.apps import PaperclipApps
from everyday_paperclip.routines import PaperclipRoutines
from harness.core.product_records import (
    BUDGET_PAUSED,
    PAUSED_BY_USER,
    SHUTDOWN_ERROR,
    Activity,
    Agent,
    AgentStatus,
    Comment,
    Company,
    Controller,
    Delivery,
    Hire,
    HireApproval,
    Receipt,
    RecordId,
    Run,
    RunCause,
    RunIdentity,
    Skill,
    SkillEntry,
    Spend,
    Task,
    TaskSummary,
)
from harness.products.api import ProductApi
from harness.products.http import ProductApiError, product_answer, product_client, product_json

TASK_STATUSES = {
    "backlog": "todo",
    "todo": "todo",
    "in_progress": "in_progress",
    "in_review": "in_review",
    "blocked": "blocked",
    "done": "done",
    "cancelled": "cancelled",
}
RUN_STATUSES = {
    "queued": "queued",
    "scheduled_retry": "queued",  # Paperclip will run it again after a back-off: waiting to run, like queued
    "running": "running",
    "succeeded": "succeeded",
    "failed": "failed",
    "cancelled": "cancelled",
    "timed_out": "failed",
    "interrupted": "failed",
}
# "interrupted": a graceful shutdown's drain (or a lease released mid-run) cut the run short.
# Why Paperclip woke an agent (a run's ``contextSnapshot.wakeReason``), in the harness's words. A reason not
# listed is left unsaid, never guessed: the driver declares run-cause, so lifecycle.runs-have-a-cause names that run.
CONTINUATION = "issue_continuation_needed"
WAKE_CAUSES: dict[str, RunCause] = {
    "issue_assigned": "assignment",
    "issue_commented": "user_message",
    "issue_comment_mentioned": "user_message",
    "issue_reopened_via_comment": "user_message",
    "comment": "user_message",
    "approval_approved": "user_decision",
    "issue_children_completed": "child_result",
    CONTINUATION: "handoff",  # unless the run it continues says more (_cause)
    "issue_monitor_due": "handoff",  # an issue monitor the agent scheduled to be woken again for its work
    "process_lost_retry": "recovery",
    "retry_failed_run": "recovery",
}
# A wake Paperclip holds back until the issue's running run ends, then starts a run for (routes/issues.js:
# ISSUE_WAKE_DIAGNOSTIC_KNOWN_STATUSES; heartbeat.js: releaseIssueExecutionAndPromote).
DEFERRED_WAKE = "deferred_issue_execution"
# An agent's standing in the harness's words; Paperclip's idle, running and error agents all take work.
AGENT_STATUSES: dict[str, AgentStatus] = {
    "paused": "paused",
    "pending_approval": "pending_approval",
    "terminated": "terminated",
}
# A hire's approval in the harness's words: one sent back for revision still waits for the board.
APPROVAL_STATUSES = {
    "pending": "pending",
    "revision_requested": "pending",
    "approved": "approved",
    "rejected": "rejected",
}
# What Paperclip records on a run it cancels because a board user paused its agent (heartbeat.js:
# cancelActiveForAgentInternal's default reason), in the harness's words.
PAUSE_CANCEL_REASON = "Cancelled due to agent pause"
# An agent its budget paused (services/budgets.js pauseScopeForBudget), and the stop reason of a run that pause
# cancelled (heartbeat-stop-metadata.js: a cancel whose message names the budget).
BUDGET_PAUSE_REASON = "budget"
BUDGET_STOP_REASON = "budget_paused"
TERMINAL_RUN_STATUSES = {"succeeded", "failed", "cancelled", "timed_out", "interrupted"}
# A run its graceful-shutdown drain cut short (heartbeat.js: drainRunningRunsForShutdown), in the harness's words.
SHUTDOWN_DRAIN_ERROR = "server_shutdown_interrupted"
PAPERCLIP_ROLES = {
    "ceo",
    "cto",
    "cmo",
    "cfo",
    "security",
    "engineer",
    "designer",
    "pm",
    "qa",
    "devops",
    "researcher",
    "general",
}
SCRIPTED_MODULE = "everyday_paperclip.agent.runner"
PROJECT_ROOT = Path(__file__).resolve().parents[3]


def _epoch(value: str | None) -> float | None:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() if value else None


# The model keys a replay CLI's adapter config carries, which Paperclip treats as secrets.
SECRET_KEYS = (KEY_VARIABLE, CLAUDE_KEY_VARIABLE)


class PaperclipApi(PaperclipApps, PaperclipRoutines, ProductApi):
    product = "Paperclip"

    def __init__(
        self,
        base_url: str,
        company_id: str,
        workspaces: Path,
        agent_settings: dict[str, str] | None = None,
        timeout: float = 15.0,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.company_id = company_id
        self.workspaces = workspaces
        self.agent_settings = agent_settings or {}
        self.http = product_client(self.base_url, timeout)
        # A finished run's log no longer grows: its receipts are read once. Its status is read every time:
        # Paperclip reports a run it is still cancelling as succeeded first (seen with 2026.824.1).
        self._final_receipts: dict[str, list[dict[str, Any]]] = {}
        self._service_urls: dict[str, str] = {}  # an app's URL, until its connection is added (see .apps)
        self._interaction_issues: dict[str, str] = {}  # a card's issue, as last read (its routes name both)
        self._agent_ids: set[str] = set()  # every agent the company's list has shown (see _raw_agents)

    def close(self) -> None:
        self.http.close()

    def _json(self, method: str, path: str, **kwargs: Any) -> Any:
        return product_json(self.http.request, method, path, **kwargs)

    # ---- reads ------------------------------------------------------------------

    def health(self) -> dict[str, Any]:
        return self._json("GET", "/api/health")  # type: ignore[no-any-return]

    def controller(self) -> Controller:
        """Paperclip names its server process by the time it started; the pid is not in its API."""
        started = self.health()["serverInfo"]["processStartedAt"]
        return Controller(instance_id=str(started), pid=None)

    def company(self) -> Company:
        raw = self._json("GET", f"/api/companies/{self.company_id}")
        return Company(name=raw["name"], budget_cents=raw["budgetMonthlyCents"], spend_cents=raw["spentMonthlyCents"])

    def _raw_agents(self) -> list[dict[str, Any]]:
        """The company's agents, the terminated ones included: its list leaves those out (services/agents.js
        ``list``, without ``includeTerminated``), and each stays readable by its id, as a terminated agent is kept."""
        listed: list[dict[str, Any]] = self._json("GET", f"/api/companies/{self.company_id}/agents")
        self._agent_ids.update(agent["id"] for agent in listed)
        gone = sorted(self._agent_ids - {agent["id"] for agent in listed})
        return [*listed, *(self._json("GET", f"/api/agents/{agent_id}") for agent_id in gone)]

    def agents(self) -> list[Agent]:
        calls = self._reported_calls()
        return [self._agent(raw, calls.get(raw["id"], 0)) for raw in self._raw_agents()]

    def _reported_calls(self) -> dict[str, int]:
        """How many model calls each agent reported (Paperclip logs ``cost.reported`` for each cost event; it lists
        at most 500 entries, far more than a story's metered work)."""
        calls: dict[str, int] = {}
        params = {"entityType": "cost_event", "limit": 500}
        for entry in self._json("GET", f"/api/companies/{self.company_id}/activity", params=params):
            if entry["action"] == "cost.reported" and entry.get("agentId"):
                calls[entry["agentId"]] = calls.get(entry["agentId"], 0) + 1
        return calls

    @staticmethod
    def _agent(raw: dict[str, Any], calls: int = 0) -> Agent:
        env = (raw.get("adapterConfig") or {}).get("env") or {}
        return Agent(
            id=raw["id"],
            name=raw["name"],
            role=raw.get("title") or raw["role"],
            reports_to=raw.get("reportsTo"),
            adapter=_env_value(env, "EVERYDAY_ADAPTER") or raw["adapterType"],
            model=_env_value(env, "EVERYDAY_MODEL"),
            budget_cents=raw.get("budgetMonthlyCents") or None,
            status=AGENT_STATUSES.get(raw.get("status", ""), "active"),
            spend=Spend(cents=float(raw.get("spentMonthlyCents") or 0), calls=calls),
            paused_for_budget=raw.get("status") == "paused" and raw.get("pauseReason") == BUDGET_PAUSE_REASON,
        )

    def _raw_issues(self) -> list[dict[str, Any]]:
        return self._json("GET", f"/api/companies/{self.company_id}/issues")  # type: ignore[no-any-return]

    def tasks(self) -> list[TaskSummary]:
        names = {a["id"]: a["name"] for a in self._raw_agents()}
        issues = sorted(self._raw_issues(), key=lambda i: i["createdAt"])
        return [self._summary(raw, names) for raw in issues]

    @staticmethod
    def _summary(raw: dict[str, Any], names: dict[str, str]) -> TaskSummary:
        return TaskSummary(
            id=raw["id"],
            title=raw["title"],
            status=TASK_STATUSES[raw["status"]],
            assignee_id=raw.get("assigneeAgentId"),
            assignee_name=names.get(raw.get("assigneeAgentId") or ""),
            parent_id=raw.get("parentId"),
            updated_at=raw["updatedAt"],
        )

    def issue(self, task_id: RecordId) -> dict[str, Any]:
        """Paperclip's own JSON for an issue (the page objects need its identifier)."""
        return self._json("GET", f"/api/issues/{task_id}")  # type: ignore[no-any-return]

    def task(self, task_id: RecordId) -> Task:
        raw = self.issue(task_id)
        names = {a["id"]: a["name"] for a in self._raw_agents()}
        runs_raw = sorted(self._json("GET", f"/api/issues/{task_id}/runs"), key=lambda r: r["createdAt"])
        details = [self._run_detail(r["runId"], r["status"]) for r in runs_raw]
        # Paperclip lists under a child issue the parent's run that created it; a task's runs are those woken for it.
        details = [d for d in details if str((d.get("contextSnapshot") or {}).get("issueId")) == str(task_id)]
        runs = [self._run(d, str(task_id)) for d in details]
        receivers = _receivers(details)
        comments = [
            self._comment(c, str(task_id), receivers)
            for c in sorted(self._json("GET", f"/api/issues/{task_id}/comments"), key=lambda c: c["createdAt"])
        ]
        attachments = sorted(self._json("GET", f"/api/issues/{task_id}/attachments"), key=lambda a: a["createdAt"])
        deliveries = [self._delivery(a, str(task_id), details) for a in attachments if _is_zip(a)]
        children = [
            self._summary(i, names)
            for i in sorted(self._raw_issues(), key=lambda i: i["createdAt"])
            if i.get("parentId") == str(task_id)
        ]
        active = next((r.id for r in runs if r.active), None)
        unconsumed = sum(1 for c in comments if c.author_kind == "user" and c.consumed_by_run_id is None)
        # A wake Paperclip deferred for the issue is a run it owes (a comment's own run once the running one ends: a
        # new run boundary); read from its wake diagnostics, it keeps the task unsettled between the two runs.
        events = self._json("GET", f"/api/issues/{task_id}/diagnostics/wakes").get("events") or []
        owed = sum(1 for e in events if e.get("kind") == "wake_request" and e.get("status") == DEFERRED_WAKE)
        return Task(
            **self._summary(raw, names).model_dump(),
            body=markdown_text(raw.get("description") or ""),
            comments=comments,
            runs=runs,
            deliveries=deliveries,
            children=children,
            active_run_id=active,
            unconsumed_user_messages=unconsumed,
            owed_runs=owed,
        )

    def _run_detail(self, run_id: str, status: str) -> dict[str, Any]:
        detail: dict[str, Any] = self._json("GET", f"/api/heartbeat-runs/{run_id}")
        if run_id in self._final_receipts:
            detail["receipts"] = self._final_receipts[run_id]
            return detail
        detail["receipts"] = self._receipts(run_id)
        if detail["status"] in TERMINAL_RUN_STATUSES and detail.get("logSha256"):  # the log store finalized it
            self._final_receipts[run_id] = detail["receipts"]
        return detail

    def _receipts(self, run_id: str) -> list[dict[str, Any]]:
        """The agent's tool receipts: from the stdout Paperclip kept in the run's log (the scripted agent), then
        from the file our tool server keeps beside a CLI's run (a CLI's log is its own stream)."""
        response = self.http.get(f"/api/heartbeat-runs/{run_id}/log")
        text = _log_stdout(response.json()) if response.status_code < 400 else ""
        lines = [line[len(RECEIPT_MARK) :] for line in text.splitlines() if line.startswith(RECEIPT_MARK)]
        instance = self.agent_settings.get("instance")
        kept = Path(instance) / RECEIPTS_FOLDER / f"{run_id}.jsonl" if instance else None
        if kept is not None and kept.is_file():
            lines += kept.read_text().splitlines()
        receipts = []
        for line in lines:
            try:
                receipts.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # a line cut short
        return receipts

    def run(self, run_id: RecordId) -> Run:
        detail = self._run_detail(str(run_id), "")
        return self._run(detail, str((detail.get("contextSnapshot") or {}).get("issueId") or ""))

    def _continued(self, context: dict[str, Any]) -> tuple[str, str | None] | None:
        """The status and error code of the run a continuation takes up (its ``retryOfRunId``), or None.

        Read every time, as every run's status is: Paperclip reports a run it is still cancelling as succeeded first.
        """
        retried = context.get("retryOfRunId")
        if context.get("wakeReason") != CONTINUATION or not retried:
            return None
        raw = self._json("GET", f"/api/heartbeat-runs/{retried}")
        return RUN_STATUSES[raw["status"]], _error_code(raw)

    def _run(self, raw: dict[str, Any], task_id: str) -> Run:
        result = raw.get("resultJson") or {}
        context = raw.get("contextSnapshot") or {}
        return Run(
            id=raw["id"],
            task_id=task_id,
            agent_id=raw["agentId"],
            status=RUN_STATUSES[raw["status"]],
            # Paperclip's runner identity is the process group it spawned and tracks for the run.
            identity=RunIdentity(
                runner_instance_id=f"pgid-{raw['processGroupId']}" if raw.get("processGroupId") else None,
                pid=raw.get("processPid"),
                process_start_time=_epoch(raw.get("processStartedAt")),
            ),
            queued_at=raw["createdAt"],
            started_at=raw.get("startedAt"),
            ended_at=raw.get("finishedAt"),
            cost_cents=0,
            error_code=_error_code(raw),
            terminal={
                "stop_reason": result.get("stopReason"),
                "exit_code": raw.get("exitCode"),
                "signal": raw.get("signal"),
                "error": raw.get("error"),
            }
            if raw["status"] in TERMINAL_RUN_STATUSES
            else None,
            process_group_gone=None,
            receipts=[Receipt.model_validate(r) for r in raw.get("receipts", [])],
            cause=_cause(context, raw.get("invocationSource"), self._continued(context)),
        )

    @staticmethod
    def _comment(raw: dict[str, Any], task_id: str, receivers: dict[str, list[tuple[str, bool]]]) -> Comment:
        kind = "user" if raw["authorType"] == "user" else "agent"
        received = receivers.get(raw["id"], []) if kind == "user" else []
        consumer = received[0][0] if received else None
        return Comment(
            id=raw["id"],
            task_id=task_id,
            author_kind=kind,
            agent_id=raw.get("authorAgentId"),
            author_name=raw.get("authorAgentId") or raw.get("authorUserId") or "",
            run_id=raw.get("createdByRunId"),
            body=markdown_text(raw["body"]) if isinstance(raw["body"], str) else json.dumps(raw["body"]),
            created_at=raw["createdAt"],
            consumed_by_run_id=consumer,
            consumed_at=None,
            woke_run_ids=list(dict.fromkeys(run_id for run_id, woken in received if woken)),
        )

    @staticmethod
    def _delivery(raw: dict[str, Any], task_id: str, runs: list[dict[str, Any]]) -> Delivery:
        at = raw["createdAt"]
        run = next(
            (
                r
                for r in runs
                if r["agentId"] == raw.get("createdByAgentId")
                and (r.get("startedAt") or "") <= at
                and (r.get("finishedAt") is None or at <= r["finishedAt"])
            ),
            None,
        )
        return Delivery(
            id=raw["id"],
            task_id=task_id,
            run_id=run["id"] if run else "",
            sha256=raw["sha256"],
            size=raw["byteSize"],
            files=[],
            created_at=at,
            download_url=raw["downloadPath"],
        )

    def delivery_bytes(self, delivery_id: RecordId) -> bytes:
        return product_answer(self.http.request, "GET", f"/api/attachments/{delivery_id}/content").content

    def activity(self) -> list[Activity]:
        """Paperclip's activity log, plus one ``run_adopted`` entry per run a restarted server adopted.

        Paperclip records an adoption on the run itself (``resultJson.hotRestart``
        and a lifecycle run event), not in its activity log.
        """
        raw = self._json("GET", f"/api/companies/{self.company_id}/activity")
        entries = [
            Activity(
                id=a["id"],
                at=a["createdAt"],
                kind=a["action"],
                task_id=a["entityId"] if a.get("entityType") == "issue" else None,
                run_id=a.get("runId"),
                message=json.dumps(a.get("details") or {})[:500],
            )
            for a in raw
        ]
        for run in self._json("GET", f"/api/companies/{self.company_id}/heartbeat-runs"):
            adopted = (run.get("resultJson") or {}).get("hotRestart") or {}
            if adopted.get("adopted") is True:
                entries.append(
                    Activity(
                        id=f"adopted-{run['id']}-{adopted.get('adoptedAt')}",
                        at=str(adopted.get("adoptedAt")),
                        kind="run_adopted",
                        task_id=(run.get("contextSnapshot") or {}).get("issueId"),
                        run_id=run["id"],
                        message=json.dumps(
                            {k: adopted.get(k) for k in ("previousServerPid", "newServerPid", "processPid")}
                        ),
                    )
                )
        return sorted(entries, key=lambda a: a.at)

    def workspace_hashes(self, task_id: RecordId) -> dict[str, str]:
        folder = self.workspaces / str(task_id)
        if not folder.is_dir():
            return {}
        return {
            p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*"))
            if p.is_file()
            and not any(part.startswith(".") or part == "__pycache__" for part in p.relative_to(folder).parts)
        }

    # ---- writes -----------------------------------------------------------------

    def create_agent(
        self,
        name: str,
        role: str = "engineer",
        reports_to: RecordId | None = None,
        adapter: str = "scripted",
        model: str = "default",
    ) -> Agent:
        """An agent on Paperclip's ``process`` adapter running the scripted agent, or a real CLI on its own adapter.

        ``codex`` runs on Paperclip's ``codex_local`` (see ``codex_local_config``),
        ``claude`` on its ``claude_local`` (``claude_local_config``); only where the instance has a model upstream (the replay server), so no
        agent here can reach a real model API.
        """
        payload = self._agent_payload(name, role, reports_to, adapter, model)
        return self._agent(self._json("POST", f"/api/companies/{self.company_id}/agents", json=payload))

    def _agent_payload(
        self, name: str, role: str, reports_to: RecordId | None, adapter: str, model: str
    ) -> dict[str, Any]:
        settings = self.agent_settings
        if adapter == "codex":
            config, adapter_type = codex_local_config(name, model, settings), "codex_local"
        elif adapter == "claude":
            config, adapter_type = claude_local_config(name, model, settings), "claude_local"
        elif adapter == "scripted":
            config, adapter_type = self._scripted_config(adapter, model, settings), "process"
        else:
            raise ValueError(f"the Paperclip driver runs the scripted agent, codex and claude, not {adapter!r}")
        return {
            "name": name,
            "role": role if role in PAPERCLIP_ROLES else "engineer",
            "title": role,
            "reportsTo": reports_to,
            "adapterType": adapter_type,
            "adapterConfig": config,
        }

    # ---- the team: hires the board approves, tasks for an agent that may take none -------------

    def require_hire_approval(self, required: bool) -> None:
        """Paperclip's company setting ``requireBoardApprovalForNewAgents``."""
        payload = {"requireBoardApprovalForNewAgents": required}
        self._json("PATCH", f"/api/companies/{self.company_id}", json=payload)

    def request_hire(
        self, name: str, role: str, reports_to: RecordId | None, adapter: str, model: str
    ) -> HireApproval | None:
        """Paperclip's hire route (``POST .../agent-hires``): the agent, and its approval when the board must decide.

        A replay CLI's placeholder model key goes in as a company secret reference: Paperclip redacts a plain one in
        the approval and then refuses to persist the redacted value when the board approves.
        """
        payload = self._agent_payload(name, role, reports_to, adapter, model)
        env = payload["adapterConfig"].get("env", {})
        for key in [key for key in env if key in SECRET_KEYS]:
            secret = {"name": f"{name} {key}", "value": env[key]}
            created = self._json("POST", f"/api/companies/{self.company_id}/secrets", json=secret)
            env[key] = {"type": "secret_ref", "secretId": created["id"], "version": "latest"}
        answer = self._json("POST", f"/api/companies/{self.company_id}/agent-hires", json=payload)
        return self._approval(answer["approval"]) if answer.get("approval") else None

    def hire(self, hire: Hire) -> Agent:
        """Hire as ``hire`` says through Paperclip's hire route (``POST .../agent-hires``), then bind the agent to
        the connections it names (Paperclip binds connections apart from the hire); the agent as stored."""
        managers = {a["name"]: a["id"] for a in self._raw_agents()}
        payload = self._agent_payload(hire.name, hire.role, managers.get(hire.reports_to), hire.adapter, hire.model)
        answer = self._json("POST", f"/api/companies/{self.company_id}/agent-hires", json=payload)
        self.bind_agent(answer["agent"]["id"], list(hire.connection_ids))
        return self._agent(answer["agent"])

    def hire_approvals(self) -> list[HireApproval]:
        raw = self._json("GET", f"/api/companies/{self.company_id}/approvals")
        return [self._approval(a) for a in sorted(raw, key=lambda a: a["createdAt"]) if a["type"] == "hire_agent"]

    @staticmethod
    def _approval(raw: dict[str, Any]) -> HireApproval:
        payload = raw.get("payload") or {}
        return HireApproval(
            id=raw["id"],
            name=payload.get("name", ""),
            status=APPROVAL_STATUSES[raw["status"]],
            agent_id=payload.get("agentId"),
        )

    def offer_task(self, title: str, body: str, agent_id: RecordId) -> Task | None:
        """An issue for the agent; None when Paperclip refuses it (``agent_not_assignable``: 409 or 422)."""
        try:
            return self.create_task(title, body, assignee_id=agent_id)
        except ProductApiError as error:
            if error.status_code in (400, 409, 422):
                return None
            raise

    def _scripted_config(self, adapter: str, model: str, settings: dict[str, str]) -> dict[str, Any]:
        return {
            "command": sys.executable,
            "args": ["-m", SCRIPTED_MODULE, "--instance", settings.get("instance", "")],
            "cwd": settings.get("workspaces", str(self.workspaces)),
            "env": {
                "EVERYDAY_ADAPTER": adapter,
                "EVERYDAY_MODEL": model,
                "EVERYDAY_PACE": settings.get("pace", "0.05"),
                "EVERYDAY_WORKSPACES": settings.get("workspaces", str(self.workspaces)),
                "PYTHONPATH": str(PROJECT_ROOT),
            },
        }

    def set_company_budget(self, cents: int) -> Company:
        """The company's monthly budget (Paperclip's own hard stop), through its public budgets route."""
        self._json("PATCH", f"/api/companies/{self.company_id}/budgets", json={"budgetMonthlyCents": cents})
        return self.company()

    def set_agent_budget(self, agent_id: RecordId, cents: int | None) -> Agent:
        """An agent's monthly budget; None clears it (Paperclip's 0: no limit)."""
        raw = self._json("PATCH", f"/api/agents/{agent_id}/budgets", json={"budgetMonthlyCents": cents or 0})
        return self._agent(raw)

    def skills(self) -> list[SkillEntry]:
        """The company's skill library (its own skills and the bundled ones), each at its current version."""
        listed = self._json("GET", f"/api/companies/{self.company_id}/skills")
        return [SkillEntry.model_validate(self.skill(raw["id"]).model_dump()) for raw in listed]

    def skill(self, skill_id: RecordId) -> Skill:
        """A company skill with its ``SKILL.md`` as its body; its version is the current version's revision number."""
        raw = self._json("GET", f"/api/companies/{self.company_id}/skills/{skill_id}")
        current = raw.get("currentVersion") or {}
        return Skill(
            id=raw["id"],
            slug=raw["slug"],
            name=raw["name"],
            version=int(current.get("revisionNumber") or 0),
            body=raw.get("markdown") or "",
        )

    def create_task(self, title: str, body: str = "", assignee_id: RecordId | None = None) -> Task:
        payload = {"title": title, "description": body, "assigneeAgentId": assignee_id, "status": "todo"}
        raw = self._json("POST", f"/api/companies/{self.company_id}/issues", json=payload)
        return self.task(raw["id"])

    def send_message(self, task_id: RecordId, body: str) -> Comment:
        raw = self._json("POST", f"/api/issues/{task_id}/comments", json={"body": body})
        return self._comment(raw, str(task_id), {})


def _env_value(env: dict[str, Any], name: str) -> str:
    """Paperclip stores an adapter's env entry as ``{"type": "plain", "value": ...}`` (or a secret reference)."""
    value = env.get(name, "")
    return str(value.get("value", "")) if isinstance(value, dict) else str(value)


def _receivers(runs: list[dict[str, Any]]) -> dict[str, list[tuple[str, bool]]]:
    """For each comment, the runs that received it, first first: ``(run id, woken for it)``.

    Why "first receiver" and not "the run Paperclip woke with it": Paperclip
    hands a comment over in two ways, and for a comment stored while the
    assignee's run is *running* it always uses both. The running run reads the
    issue's thread (our agent does, like any agent that polls for new
    instructions), and Paperclip also parks a wake for it
    (``deferred_issue_execution``: its heartbeat service says "a comment
    follow-up ... needs a new run boundary") and starts a new run with that
    comment in its context once the running run ends. Reading the consumer off
    the wake alone named that later run, which never saw the comment as new,
    while the run that acted on it went unnamed; and whether the late run
    existed by the time the story read the records depended on load. Both
    facts are Paperclip's records (the wake context on the run, the read steps
    in the run log it stores), so the first of them by time is the consumer on
    any machine, and a later woken run is kept as what it is: the same
    message handed to a second run. Read steps carry second-resolution times
    and a woken run's time is its start; Paperclip runs one run per issue
    and agent at a time, so the order is never closer than that.
    """
    found: dict[str, list[tuple[float, int, str, bool]]] = {}
    for run in runs:
        woken_at = _epoch(run.get("startedAt") or run["createdAt"]) or 0.0
        for comment_id in _delivered_comment_ids(run):
            found.setdefault(comment_id, []).append((woken_at, 1, str(run["id"]), True))
        for raw in run.get("receipts", []):
            receipt = Receipt.model_validate(raw)
            read_at = _epoch(receipt.created_at) or woken_at
            for comment_id in receipt.received_message_ids:
                found.setdefault(comment_id, []).append((read_at, 0, str(run["id"]), False))
    return {cid: [(run_id, woken) for _, _, run_id, woken in sorted(hits)] for cid, hits in found.items()}


def _delivered_comment_ids(run: dict[str, Any]) -> list[str]:
    """The comments Paperclip handed to a run when it woke it."""
    context = run.get("contextSnapshot") or {}
    wake = context.get("paperclipWake") or {}
    ids = list(wake.get("commentIds") or [])
    if context.get("commentId"):
        ids.append(context["commentId"])
    return [str(i) for i in ids]


def _error_code(run: dict[str, Any]) -> str | None:
    """Paperclip's error code, in the harness's words where one exists: a board user's cancel is a Stop."""
    result = run.get("resultJson") or {}
    if run["status"] == "cancelled" and result.get("cancelledByActorType") == "user":
        return "stopped_by_user"
    if run["status"] == "cancelled" and run.get("error") == PAUSE_CANCEL_REASON:
        return "paused_by_user"
    if run["status"] == "cancelled" and result.get("stopReason") == BUDGET_STOP_REASON:
        return BUDGET_PAUSED
    if run.get("errorCode") == SHUTDOWN_DRAIN_ERROR:
        return SHUTDOWN_ERROR
    if run["status"] in ("interrupted", "timed_out"):
        return run.get("errorCode") or run["status"]  # keep Paperclip's reason; the status alone maps to failed
    return run.get("errorCode")  # type: ignore[no-any-return]


def _cause(
    context: dict[str, Any], invocation_source: str | None = None, continued: tuple[str, str | None] | None = None
) -> RunCause | None:
    """Why Paperclip started the run, from the wake reason in its context (``WAKE_CAUSES``); None: it does not say.

    A person's decision on a card wakes the agent with Paperclip's generic
    reason ``issue_commented`` (source ``issue.interaction.accept`` or
    ``.reject``), and when the agent's run is still going Paperclip merges
    that wake's context into the run's, replacing the reason the run started
    for (heartbeat.js: mergeCoalescedContextSnapshot). Such a context says what
    last reached the run, not why it started. The run's own invocation source
    is kept: one that started for an ``assignment`` wake (the issue given to
    the agent: routes/issues.js queueIssueAssignmentWakeup) was started for its
    assignment; any other source says no more than the context does.

    A continuation (``issue_continuation_needed``: heartbeat.js, its stranded
    issue recovery) takes up the run it names, ``continued`` (that run's status
    and error code): the work a pause cut short is resumed, a failed run's is
    recovered, and any other is handed on by the agent's own earlier run.
    """
    if str(context.get("source", "")).startswith("issue.interaction."):
        return "assignment" if invocation_source == "assignment" else None
    if continued is not None:
        status, error = continued
        if error in (BUDGET_PAUSED, PAUSED_BY_USER):
            return "resumed"
        return "recovery" if status == "failed" else "handoff"
    return WAKE_CAUSES.get(str(context.get("wakeReason")))


def _is_zip(attachment: dict[str, Any]) -> bool:
    return attachment.get("contentType") == "application/zip" or str(attachment.get("originalFilename", "")).endswith(
        ".zip"
    )


def _log_stdout(payload: Any) -> str:
    """Paperclip answers a run log as NDJSON chunks (``{"ts", "stream", "chunk"}``); keep stdout, in order."""
    content = payload.get("content", "") if isinstance(payload, dict) else str(payload)
    text = []
    for line in content.splitlines():
        try:
            chunk = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(chunk, dict) and chunk.get("stream") == "stdout":
            text.append(str(chunk.get("chunk", "")))
    return "".join(text)
