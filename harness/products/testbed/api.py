"""httpx client for the testbed's public API, with pydantic models for what it reads.

The models are the harness's own (not imported from the product): they list
only the fields stories rely on, so a product change that drops one fails
loudly at the boundary instead of deep inside a story.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Literal, TypeVar

import httpx
from pydantic import BaseModel, ConfigDict

T = TypeVar("T")

TaskStatus = Literal["todo", "in_progress", "in_review", "blocked", "done", "cancelled"]
RunStatus = Literal["queued", "running", "succeeded", "failed", "cancelled"]
ACTIVE_RUN_STATUSES: tuple[RunStatus, ...] = ("queued", "running")


class Record(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class Company(Record):
    name: str
    budget_cents: int
    spend_cents: int


class Agent(Record):
    id: int
    name: str
    role: str
    reports_to: int | None
    adapter: str
    model: str


class Comment(Record):
    id: int
    task_id: int
    author_kind: Literal["user", "agent"]
    agent_id: int | None
    author_name: str
    run_id: int | None
    body: str
    created_at: str
    consumed_by_run_id: int | None
    consumed_at: str | None


class Receipt(Record):
    id: str
    seq: int
    tool: str
    target: str
    ok: bool
    detail: str
    created_at: str


class RunIdentity(Record):
    runner_instance_id: str | None
    pid: int | None
    process_start_time: float | None


class Run(Record):
    id: int
    task_id: int
    agent_id: int
    status: RunStatus
    identity: RunIdentity
    queued_at: str
    started_at: str | None
    ended_at: str | None
    cost_cents: int
    error_code: str | None
    terminal: dict[str, Any] | None
    process_group_gone: bool | None
    receipts: list[Receipt]

    @property
    def active(self) -> bool:
        return self.status in ACTIVE_RUN_STATUSES


class Delivery(Record):
    id: int
    task_id: int
    run_id: int
    sha256: str
    size: int
    files: list[str]
    created_at: str
    download_url: str


class TaskSummary(Record):
    id: int
    title: str
    status: TaskStatus
    assignee_id: int | None
    assignee_name: str | None
    parent_id: int | None
    updated_at: str


class Task(TaskSummary):
    body: str
    comments: list[Comment]
    runs: list[Run]
    deliveries: list[Delivery]
    children: list[TaskSummary]
    active_run_id: int | None
    unconsumed_user_messages: int

    @property
    def settled(self) -> bool:
        """Nothing running, nothing queued, no message waiting for the agent."""
        return self.active_run_id is None and self.unconsumed_user_messages == 0

    def user_messages(self) -> list[Comment]:
        return [c for c in self.comments if c.author_kind == "user"]

    def agent_replies(self) -> list[Comment]:
        return [c for c in self.comments if c.author_kind == "agent"]


class StopResult(Record):
    run: Run
    process_group_gone: bool


class Activity(Record):
    id: int
    at: str
    kind: str
    task_id: int | None
    run_id: int | None
    message: str


class ApiError(RuntimeError):
    def __init__(self, response: httpx.Response) -> None:
        self.status_code = response.status_code
        self.detail = response.text
        super().__init__(f"{response.request.method} {response.request.url.path} -> {response.status_code}: {response.text}")


class WaitTimeout(TimeoutError):
    """A waited-for state never came; the message says which and what was last seen."""


class ApiClient:
    def __init__(self, base_url: str, timeout: float = 15.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.http = httpx.Client(base_url=self.base_url, timeout=timeout)

    def close(self) -> None:
        self.http.close()

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """Raw access for tests of bad input; stories use the typed methods."""
        return self.http.request(method, path, **kwargs)

    def _json(self, method: str, path: str, **kwargs: Any) -> Any:
        response = self.http.request(method, path, **kwargs)
        if response.status_code >= 400:
            raise ApiError(response)
        return response.json()

    # ---- reads ------------------------------------------------------------------

    def health(self) -> dict[str, Any]:
        return self._json("GET", "/api/health")  # type: ignore[no-any-return]

    def company(self) -> Company:
        return Company.model_validate(self._json("GET", "/api/company"))

    def agents(self) -> list[Agent]:
        return [Agent.model_validate(a) for a in self._json("GET", "/api/agents")]

    def tasks(self) -> list[TaskSummary]:
        return [TaskSummary.model_validate(t) for t in self._json("GET", "/api/tasks")]

    def task(self, task_id: int) -> Task:
        return Task.model_validate(self._json("GET", f"/api/tasks/{task_id}"))

    def runs(self, task_id: int | None = None) -> list[Run]:
        params = {} if task_id is None else {"task_id": task_id}
        return [Run.model_validate(r) for r in self._json("GET", "/api/runs", params=params)]

    def run(self, run_id: int) -> Run:
        return Run.model_validate(self._json("GET", f"/api/runs/{run_id}"))

    def deliveries(self, task_id: int) -> list[Delivery]:
        return [Delivery.model_validate(d) for d in self._json("GET", f"/api/tasks/{task_id}/deliveries")]

    def delivery(self, delivery_id: int) -> Delivery:
        return Delivery.model_validate(self._json("GET", f"/api/deliveries/{delivery_id}"))

    def delivery_bytes(self, delivery_id: int) -> bytes:
        response = self.http.get(f"/api/deliveries/{delivery_id}/download")
        if response.status_code >= 400:
            raise ApiError(response)
        return response.content

    def workspace_hashes(self, task_id: int) -> dict[str, str]:
        """Path -> sha256 of every file in the task's workspace, as the product reports it."""
        return {f["path"]: f["sha256"] for f in self._json("GET", f"/api/tasks/{task_id}/workspace")}

    def activity(self) -> list[Activity]:
        return [Activity.model_validate(a) for a in self._json("GET", "/api/activity")]

    # ---- writes -----------------------------------------------------------------

    def create_agent(
        self,
        name: str,
        role: str = "engineer",
        reports_to: int | None = None,
        adapter: str = "scripted",
        model: str = "default",
    ) -> Agent:
        payload = {"name": name, "role": role, "reports_to": reports_to, "adapter": adapter, "model": model}
        return Agent.model_validate(self._json("POST", "/api/agents", json=payload))

    def create_task(self, title: str, body: str = "", assignee_id: int | None = None, parent_id: int | None = None) -> Task:
        payload = {"title": title, "body": body, "assignee_id": assignee_id, "parent_id": parent_id}
        return Task.model_validate(self._json("POST", "/api/tasks", json=payload))

    def send_message(self, task_id: int, body: str) -> Comment:
        return Comment.model_validate(self._json("POST", f"/api/tasks/{task_id}/comments", json={"body": body}))

    def stop_run(self, run_id: int) -> StopResult:
        return StopResult.model_validate(self._json("POST", f"/api/runs/{run_id}/stop"))

    # ---- waiting ----------------------------------------------------------------

    @staticmethod
    def wait_for(
        probe: Callable[[], T | None], timeout: float = 30.0, interval: float = 0.1, what: str = "condition"
    ) -> T:
        """Poll ``probe`` until it returns something truthy and return it; no caller ever sleeps."""
        deadline = time.monotonic() + timeout
        last: Any = None
        while True:
            last = probe()
            if last:
                return last
            if time.monotonic() > deadline:
                raise WaitTimeout(f"timed out after {timeout:.0f} s waiting for {what}")
            time.sleep(interval)

    def wait_for_task(self, task_id: int, predicate: Callable[[Task], bool], timeout: float = 30.0, what: str = "") -> Task:
        def probe() -> Task | None:
            task = self.task(task_id)
            return task if predicate(task) else None

        return self.wait_for(probe, timeout, what=what or f"task {task_id}")

    def wait_until_done(self, task_id: int, timeout: float = 60.0) -> Task:
        """Done and settled: nothing active, no message still waiting for the agent."""
        return self.wait_for_task(task_id, lambda t: t.status == "done" and t.settled, timeout, f"task {task_id} done")

    def wait_for_active_run(self, task_id: int, timeout: float = 30.0) -> Run:
        def probe() -> Run | None:
            return next((r for r in self.runs(task_id) if r.status == "running" and r.identity.pid), None)

        return self.wait_for(probe, timeout, what=f"a running run on task {task_id}")

    def wait_for_receipt(self, run_id: int, tool: str, target: str = "", timeout: float = 30.0) -> Run:
        """Until the run has recorded a receipt for ``tool`` (and ``target`` when given)."""

        def probe() -> Run | None:
            run = self.run(run_id)
            hit = any(r.tool == tool and (not target or r.target == target) for r in run.receipts)
            return run if hit else None

        return self.wait_for(probe, timeout, what=f"receipt {tool} {target} on run {run_id}")

    def wait_until_file_saved(self, task_id: int, filename: str, timeout: float = 30.0) -> Run:
        """Until a running run on the task has reported writing ``filename``: the moment to inject a fault."""
        run = self.wait_for_active_run(task_id, timeout)
        return self.wait_for_receipt(run.id, "write_file", filename, timeout)
