"""vibe-kanban's HTTP API, answered in :mod:`harness.core.product_records`.

The mapping, one place for it:

- the cell's *company* is the vibe-kanban project (one per instance, on the seeded repository);
- an *agent* is a Claude Code executor profile variant (``CLAUDE_CODE:<NAME>``) whose
  ``base_command_override`` runs our agent program; hiring one makes it the default
  profile, so the board's Create & Start uses it;
- a *task* is a vibe-kanban task; its *runs* are the coding-agent execution processes
  of its attempts (setup and clean-up scripts are not the agent's runs);
- a *user message* is a follow-up: the prompt of the execution process it started,
  which is therefore the run the product handed it to; it is known by
  ``<session>:<n>``, the n-th prompt of the agent session it resumed (what
  the scripted agent's read receipts name);
- an *agent reply* is an assistant message in a run's normalized logs, and a
  *receipt* a tool use there (:mod:`.logs`, followed while the run goes on);
- a run *stopped by the user* is a process vibe-kanban records ``killed``
  (only Stop kills one);
- a run's *pid* is the harness's own look at the process table (vibe-kanban
  does not report it): the agent process the server started in the
  attempt's worktree, remembered once seen, so a stopped run keeps it;
- a *delivery* is a commit on the attempt's branch (:mod:`.delivery`).

vibe-kanban has no budgets, activity log, or skill library: those reads answer
empty and those writes are refused.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psutil

from everyday_vibe_kanban import delivery
from everyday_vibe_kanban.logs import ProcessLog
from harness.core.product_records import (
    Activity,
    Agent,
    Comment,
    Company,
    Controller,
    Delivery,
    RecordId,
    Run,
    RunIdentity,
    RunStatus,
    Spend,
    Task,
    TaskStatus,
    TaskSummary,
)
from harness.products.api import ProductApi
from harness.products.http import ProductApiError, product_client, product_json

EXECUTOR = "CLAUDE_CODE"
TASK_STATUSES: dict[str, TaskStatus] = {
    "todo": "todo",
    "inprogress": "in_progress",
    "inreview": "in_review",
    "done": "done",
    "cancelled": "cancelled",
}
AGENT_RUN = "codingagent"
LOG_READ_S = 30.0
STOPPED_BY_USER = "stopped_by_user"


def _run_status(process: dict[str, Any]) -> RunStatus:
    status = process["status"]
    if status == "running":
        return "running"
    if status == "killed":
        return "cancelled"
    if status == "completed" and process.get("exit_code") in (0, None):
        return "succeeded"
    return "failed"


def _epoch(stamp: str) -> float:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def _stamp(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat()


class VibeKanbanApi(ProductApi):
    """One instance's API client; ``agent_command(adapter, model)`` is the command line a hired agent's profile runs."""

    product = "vibe-kanban"

    def __init__(
        self,
        base_url: str,
        repo: Path,
        agent_command: Callable[[str, str], str],
        controller_identity: Callable[[], Controller],
        on_disk: Callable[[str], Path],
        agent_process: Callable[[str, float], psutil.Process | None],
        run_spend: Callable[[str, float, float | None], Spend],
        timeout: float = 30.0,
    ) -> None:
        self.base_url = base_url
        self.repo = repo
        self._agent_command = agent_command
        self._controller = controller_identity
        self._on_disk = on_disk
        self._agent_process = agent_process
        self._run_spend = run_spend
        self._http = product_client(base_url, timeout)
        self._streams = product_client(base_url, timeout)
        self._logs: dict[str, ProcessLog] = {}
        self._pids: dict[str, tuple[int, float]] = {}
        self._project: dict[str, Any] | None = None
        self._roles: dict[str, str] = {}

    def close(self) -> None:
        for log in self._logs.values():
            log.close()
        self._http.close()
        self._streams.close()

    # ---- transport ------------------------------------------------------------

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        """vibe-kanban wraps every answer as ``{success, data, message}``; a refusal is the product's error."""
        body = product_json(self._http.request, method, path, **kwargs)
        if not isinstance(body, dict) or not body.get("success"):
            raise ProductApiError(f"{method} {path} -> refused: {str(body)[:300]}")
        return body.get("data")

    # ---- first run and the project -----------------------------------------------

    def health(self) -> dict[str, Any]:
        return {"status": self._call("GET", "/api/health")}

    def acknowledge_first_run(self) -> None:
        """The disclaimer, onboarding, GitHub login and telemetry questions, answered as a person does once."""
        config = self._call("GET", "/api/info")["config"]
        config.update(
            disclaimer_acknowledged=True,
            onboarding_acknowledged=True,
            github_login_acknowledged=True,
            telemetry_acknowledged=True,
            analytics_enabled=False,
        )
        self._call("PUT", "/api/config", json=config)

    def create_project(self, name: str) -> dict[str, Any]:
        """The project on the seeded repository (one per instance)."""
        self._project = self._call(
            "POST",
            "/api/projects",
            json={
                "name": name,
                "git_repo_path": str(self.repo),
                "use_existing_repo": True,
                "setup_script": None,
                "dev_script": None,
                "cleanup_script": None,
                "copy_files": None,
            },
        )
        return self._project

    @property
    def project(self) -> dict[str, Any]:
        if self._project is None:
            projects = self._call("GET", "/api/projects")
            if not projects:
                raise ProductApiError("vibe-kanban has no project")
            self._project = projects[0]
        return self._project

    def controller(self) -> Controller:
        return self._controller()

    def company(self) -> Company:
        return Company(name=self.project["name"], budget_cents=0, spend_cents=0)

    # ---- agents: executor profiles ------------------------------------------------

    def _profiles(self) -> dict[str, Any]:
        return json.loads(self._call("GET", "/api/profiles")["content"])  # type: ignore[no-any-return]

    def agents(self) -> list[Agent]:
        variants = self._profiles()["executors"][EXECUTOR]
        return [
            Agent(
                id=name,
                name=name.title(),
                role=self._roles.get(name, "coding agent"),
                reports_to=None,
                adapter=_adapter(config[EXECUTOR].get("base_command_override", "")),
                model=_persona(config[EXECUTOR].get("base_command_override", "")),
            )
            for name, config in variants.items()
            if name in self._roles
        ]

    def create_agent(
        self,
        name: str,
        role: str = "coding agent",
        reports_to: RecordId | None = None,
        adapter: str = "scripted",
        model: str = "default",
    ) -> Agent:
        """A Claude Code profile variant running our command for ``adapter``, made the default profile.

        The DEFAULT variant runs it too: a follow-up sent without a variant
        falls back to DEFAULT, which would otherwise start the latest CLI through npx.
        """
        variant = name.upper()
        profiles = self._profiles()
        claude = profiles["executors"][EXECUTOR]
        command = self._agent_command(adapter, model)
        claude[variant] = {EXECUTOR: {"dangerously_skip_permissions": True, "base_command_override": command}}
        claude["DEFAULT"][EXECUTOR]["base_command_override"] = command
        self._call("PUT", "/api/profiles", json=profiles)
        config = self._call("GET", "/api/info")["config"]
        config["executor_profile"] = {"executor": EXECUTOR, "variant": variant}
        self._call("PUT", "/api/config", json=config)
        self._roles[variant] = role
        return next(agent for agent in self.agents() if agent.id == variant)

    # ---- tasks, attempts and runs ---------------------------------------------------

    def _summary(self, raw: dict[str, Any]) -> TaskSummary:
        return TaskSummary(
            id=raw["id"],
            title=raw["title"],
            status=TASK_STATUSES[raw["status"]],
            assignee_id=None,
            assignee_name=None,
            parent_id=None,
            updated_at=raw["updated_at"],
        )

    def tasks(self) -> list[TaskSummary]:
        raw = self._call("GET", "/api/tasks", params={"project_id": self.project["id"]})
        return [self._summary(t) for t in raw]

    def attempts(self, task_id: RecordId) -> list[dict[str, Any]]:
        attempts = self._call("GET", "/api/task-attempts", params={"task_id": str(task_id)})
        return sorted(attempts, key=lambda a: a["created_at"])

    def processes(self, attempt_id: str) -> list[dict[str, Any]]:
        """The attempt's coding-agent runs, oldest first."""
        found = self._call("GET", "/api/execution-processes", params={"task_attempt_id": attempt_id})
        return sorted((p for p in found if p["run_reason"] == AGENT_RUN), key=lambda p: p["created_at"])

    def _run(
        self, task_id: RecordId, process: dict[str, Any], attempt: dict[str, Any], until: str | None = None
    ) -> Run:
        """One coding-agent process as a run; ``until``: when the attempt's next run started (its calls are not this one's)."""
        action = process["executor_action"]["typ"]
        status = _run_status(process)
        pid, started = self._pid(process, attempt) or (None, None)
        return Run(
            id=process["id"],
            task_id=task_id,
            agent_id=action.get("executor_profile_id", {}).get("variant") or "DEFAULT",
            status=status,
            identity=RunIdentity(runner_instance_id=None, pid=pid, process_start_time=started),
            queued_at=process["created_at"],
            started_at=process["started_at"],
            ended_at=process.get("completed_at"),
            cost_cents=0,
            error_code={"failed": f"exit {process.get('exit_code')}", "cancelled": STOPPED_BY_USER}.get(status),
            terminal=None,
            process_group_gone=None,
            receipts=self._log(process["id"]).receipts(process["started_at"]),
            spend=self._run_spend(
                attempt.get("container_ref") or "", _epoch(process["started_at"]), _epoch(until) if until else None
            ),
        )

    def _pid(self, process: dict[str, Any], attempt: dict[str, Any]) -> tuple[int, float] | None:
        """The agent process of a running run, as the harness saw it in the process table (kept once seen)."""
        known = self._pids.get(process["id"])
        if known is None and process["status"] == "running" and attempt.get("container_ref"):
            found = self._agent_process(attempt["container_ref"], _epoch(process["started_at"]))
            if found is not None:
                known = self._pids[process["id"]] = (found.pid, found.create_time())
        return known

    def _log(self, process_id: str) -> ProcessLog:
        if process_id not in self._logs:
            self._logs[process_id] = ProcessLog(self._streams, process_id)
        return self._logs[process_id]

    def replies(self, process_id: str) -> list[str]:
        """The assistant messages of a finished run's normalized logs, in order (all of them, once it says so)."""
        log = self._log(process_id)
        log.finished.wait(LOG_READ_S)
        return log.replies()

    def task(self, task_id: RecordId) -> Task:
        raw = self._call("GET", f"/api/tasks/{task_id}")
        runs: list[Run] = []
        comments: list[Comment] = []
        deliveries: list[Delivery] = []
        for attempt in self.attempts(task_id):
            processes = self.processes(attempt["id"])
            prompts: dict[str, int] = {}  # per resumed session, its prompts so far (the task's is the 0th)
            for process, after in zip(processes, [*processes[1:], None], strict=True):
                run = self._run(task_id, process, attempt, after["started_at"] if after else None)
                runs.append(run)
                comments += self._comments(task_id, process, run, prompts)
            deliveries += self._deliveries(task_id, attempt, processes)
        active = next((run.id for run in runs if run.active), None)
        assignee = runs[0].agent_id if runs else None  # the profile the task was started with
        return Task(
            **self._summary(raw).model_dump(exclude={"assignee_id", "assignee_name"}),
            assignee_id=assignee,
            assignee_name=str(assignee).title() if assignee else None,
            body=raw.get("description") or "",
            comments=comments,
            runs=runs,
            deliveries=deliveries,
            children=[],
            active_run_id=active,
            unconsumed_user_messages=0,
        )

    def _comments(self, task_id: RecordId, process: dict[str, Any], run: Run, prompts: dict[str, int]) -> list[Comment]:
        action = process["executor_action"]["typ"]
        comments = []
        if action["type"] == "CodingAgentFollowUpRequest":
            session = str(action.get("session_id"))
            prompts[session] = prompts.get(session, 0) + 1
            comments.append(
                Comment(
                    id=f"{session}:{prompts[session]}",
                    task_id=task_id,
                    author_kind="user",
                    agent_id=None,
                    author_name="you",
                    run_id=None,
                    body=action["prompt"],
                    created_at=process["created_at"],
                    consumed_by_run_id=process["id"],
                    consumed_at=process["started_at"],
                    woke_run_ids=[process["id"]],
                )
            )
        if not run.active:
            for n, text in enumerate(self.replies(process["id"])):
                comments.append(
                    Comment(
                        id=f"{process['id']}:{n}",
                        task_id=task_id,
                        author_kind="agent",
                        agent_id=run.agent_id,
                        author_name=str(run.agent_id).title(),
                        run_id=run.id,
                        body=text,
                        created_at=run.ended_at or run.started_at or run.queued_at,
                        consumed_by_run_id=None,
                        consumed_at=None,
                    )
                )
        return comments

    def _deliveries(
        self, task_id: RecordId, attempt: dict[str, Any], processes: list[dict[str, Any]]
    ) -> list[Delivery]:
        """Each commit on the attempt's branch, credited to the last run that started before it."""
        if not attempt.get("branch"):
            return []
        found = []
        for commit in delivery.branch_commits(self.repo, attempt["base_branch"], attempt["branch"]):
            started = [p for p in processes if int(_epoch(p["started_at"])) <= commit.committed_at]
            if not started:
                continue
            data = delivery.zip_of(self.repo, commit.sha)
            found.append(
                Delivery(
                    id=commit.sha,
                    task_id=task_id,
                    run_id=started[-1]["id"],
                    sha256=delivery.sha256(data),
                    size=len(data),
                    files=delivery.files_of(self.repo, commit.sha),
                    created_at=_stamp(commit.committed_at),
                    download_url=f"branch {attempt['branch']} at {commit.sha}",
                )
            )
        return found

    def run(self, run_id: RecordId) -> Run:
        process = self._call("GET", f"/api/execution-processes/{run_id}")
        attempt = self._call("GET", f"/api/task-attempts/{process['task_attempt_id']}")
        after = [p for p in self.processes(attempt["id"]) if p["created_at"] > process["created_at"]]
        return self._run(attempt["task_id"], process, attempt, after[0]["started_at"] if after else None)

    def create_task(self, title: str, body: str) -> TaskSummary:
        """A task on the board (the API's counterpart of the dialog's Create Task)."""
        raw = self._call(
            "POST", "/api/tasks", json={"project_id": self.project["id"], "title": title, "description": body}
        )
        return self._summary(raw)

    def start_attempt(self, task_id: RecordId, agent_id: RecordId) -> dict[str, Any]:
        """An attempt of the task by the hired agent's profile, from ``main`` (Create & Start's second half)."""
        return self._call(  # type: ignore[no-any-return]
            "POST",
            "/api/task-attempts",
            json={
                "task_id": str(task_id),
                "executor_profile_id": {"executor": EXECUTOR, "variant": str(agent_id)},
                "base_branch": "main",
            },
        )

    def latest_attempt(self, task_id: RecordId) -> dict[str, Any] | None:
        attempts = self.attempts(task_id)
        return attempts[-1] if attempts else None

    def follow_up(self, attempt_id: str, prompt: str) -> dict[str, Any]:
        return self._call(  # type: ignore[no-any-return]
            "POST", f"/api/task-attempts/{attempt_id}/follow-up", json={"prompt": prompt, "variant": None}
        )

    def stop(self, attempt_id: str) -> None:
        self._call("POST", f"/api/task-attempts/{attempt_id}/stop")

    def activity(self) -> list[Activity]:
        return []

    def workspace_hashes(self, task_id: RecordId) -> dict[str, str]:
        """sha256 of each file in the latest attempt's worktree (its ``.git`` link excluded)."""
        attempt = self.latest_attempt(task_id)
        if attempt is None or not attempt.get("container_ref"):
            return {}
        root = self._on_disk(attempt["container_ref"])
        return {
            str(p.relative_to(root)): delivery.sha256(p.read_bytes())
            for p in sorted(root.rglob("*"))
            if p.is_file() and ".git" not in p.relative_to(root).parts
        }

    def delivery_bytes(self, delivery_id: RecordId) -> bytes:
        return delivery.zip_of(self.repo, str(delivery_id))


def _adapter(command: str) -> str:
    """Which of our commands a profile runs: the real Claude Code (behind our proxy) or the scripted agent."""
    return "claude" if "everyday_vibe_kanban.claude_cli" in shlex.split(command) else "scripted"


def _persona(command: str) -> str:
    """The ``--model`` of an agent command line (the scripted persona)."""
    words = shlex.split(command)
    return words[words.index("--model") + 1] if "--model" in words else "default"
