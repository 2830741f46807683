"""httpx client for the testbed's public API, answering in the harness's product records.

The testbed's JSON already has the shape of :mod:`harness.core.product_records`,
so reading is validation; another product's client maps its own JSON there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import httpx

from harness.core.product_records import (
    Activity,
    Agent,
    Comment,
    Company,
    Connection,
    Controller,
    Delivery,
    HireApproval,
    Interaction,
    ProviderEntry,
    RecordId,
    Routine,
    RoutineFire,
    Run,
    Service,
    Skill,
    SkillEntry,
    StopResult,
    Task,
    TaskSummary,
)
from harness.core.waiting import WaitTimeout, wait_for
from harness.products.api import ProductApi
from harness.products.http import ProductApiError, product_answer, product_client, product_json

__all__ = ["ApiClient", "WaitTimeout"]

T = TypeVar("T")


class ApiClient(ProductApi):
    product = "the testbed"

    def __init__(self, base_url: str, timeout: float = 15.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.http = product_client(self.base_url, timeout)

    def close(self) -> None:
        self.http.close()

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """Raw access for tests of bad input; stories use the typed methods."""
        return self.http.request(method, path, **kwargs)

    def _json(self, method: str, path: str, **kwargs: Any) -> Any:
        return product_json(self.http.request, method, path, **kwargs)

    # ---- reads ------------------------------------------------------------------

    def health(self) -> dict[str, Any]:
        return self._json("GET", "/api/health")  # type: ignore[no-any-return]

    def controller(self) -> Controller:
        """The health answer names the controller process; a restart changes its instance id."""
        return Controller.model_validate(self.health())

    def company(self) -> Company:
        return Company.model_validate(self._json("GET", "/api/company"))

    def agents(self) -> list[Agent]:
        return [_agent(a) for a in self._json("GET", "/api/agents")]

    def tasks(self) -> list[TaskSummary]:
        return [TaskSummary.model_validate(t) for t in self._json("GET", "/api/tasks")]

    def task(self, task_id: RecordId) -> Task:
        return Task.model_validate(self._json("GET", f"/api/tasks/{task_id}"))

    def runs(self, task_id: RecordId | None = None) -> list[Run]:
        params = {} if task_id is None else {"task_id": task_id}
        return [Run.model_validate(r) for r in self._json("GET", "/api/runs", params=params)]

    def run(self, run_id: RecordId) -> Run:
        return Run.model_validate(self._json("GET", f"/api/runs/{run_id}"))

    def deliveries(self, task_id: RecordId) -> list[Delivery]:
        return [Delivery.model_validate(d) for d in self._json("GET", f"/api/tasks/{task_id}/deliveries")]

    def delivery(self, delivery_id: RecordId) -> Delivery:
        return Delivery.model_validate(self._json("GET", f"/api/deliveries/{delivery_id}"))

    def delivery_bytes(self, delivery_id: RecordId) -> bytes:
        return product_answer(self.http.request, "GET", f"/api/deliveries/{delivery_id}/download").content

    def workspace_hashes(self, task_id: RecordId) -> dict[str, str]:
        """Path -> sha256 of every file in the task's workspace, as the product reports it."""
        return {f["path"]: f["sha256"] for f in self._json("GET", f"/api/tasks/{task_id}/workspace")}

    def routines(self) -> list[Routine]:
        return [_routine(r) for r in self._json("GET", "/api/routines")]

    def routine(self, routine_id: RecordId) -> Routine:
        return _routine(self._json("GET", f"/api/routines/{routine_id}"))

    def deliver_webhook(self, routine_id: RecordId, delivery_id: str) -> None:
        """Post one delivery to the routine's webhook URL, as an outside system holding it would."""
        url = self._json("GET", f"/api/routines/{routine_id}")["webhook_url"]
        self._json("POST", url, headers={"Idempotency-Key": delivery_id})

    def skills(self) -> list[SkillEntry]:
        """The company skill library, oldest first."""
        return [SkillEntry.model_validate(s) for s in self._json("GET", "/api/skills")]

    def skill(self, skill_id: RecordId) -> Skill:
        return Skill.model_validate(self._json("GET", f"/api/skills/{skill_id}"))

    def activity(self) -> list[Activity]:
        return [Activity.model_validate(a) for a in self._json("GET", "/api/activity")]

    def connections(self) -> list[Connection]:
        return [Connection.model_validate(c) for c in self._json("GET", "/api/connections")]

    def interactions(self, task_id: RecordId | None = None) -> list[Interaction]:
        params = {} if task_id is None else {"task_id": task_id}
        return [Interaction.model_validate(i) for i in self._json("GET", "/api/interactions", params=params)]

    def raw_reads(self) -> dict[str, bytes]:
        """The raw answers of every public read that could carry a connection's credential, by path."""
        paths = ["/api/services", "/api/connections", "/api/interactions", "/api/agents", "/api/activity"]
        paths += [f"/api/tasks/{t.id}" for t in self.tasks()]
        paths += [f"/api/connections/{c.id}" for c in self.connections()]
        return {path: self.http.get(path).content for path in paths}

    # ---- writes -----------------------------------------------------------------

    def create_agent(
        self,
        name: str,
        role: str = "engineer",
        reports_to: RecordId | None = None,
        adapter: str = "scripted",
        model: str = "default",
        budget_cents: int | None = None,
    ) -> Agent:
        payload = {
            "name": name,
            "role": role,
            "reports_to": reports_to,
            "adapter": adapter,
            "model": model,
            "budget_cents": budget_cents,
        }
        return _agent(self._json("POST", "/api/agents", json=payload))

    def set_company_budget(self, cents: int) -> Company:
        return Company.model_validate(self._json("PUT", "/api/company/budget", json={"budget_cents": cents}))

    def set_agent_budget(self, agent_id: RecordId, cents: int | None) -> Agent:
        return _agent(self._json("PUT", f"/api/agents/{agent_id}/budget", json={"budget_cents": cents}))

    # ---- the team: hires that wait for approval (testbed/team.py) ----------------------

    def require_hire_approval(self, required: bool) -> None:
        self._json("PUT", "/api/company/hire-approval", json={"required": required})

    def request_hire(
        self, name: str, role: str, reports_to: RecordId | None, adapter: str, model: str
    ) -> HireApproval | None:
        payload = {"name": name, "role": role, "reports_to": reports_to, "adapter": adapter, "model": model}
        answer = self._json("POST", "/api/hires", json=payload)
        return HireApproval.model_validate(answer["approval"]) if answer["approval"] else None

    def hire_approvals(self) -> list[HireApproval]:
        return [HireApproval.model_validate(a) for a in self._json("GET", "/api/approvals")]

    def offer_task(self, title: str, body: str, agent_id: RecordId) -> Task | None:
        """A task for the agent; None when the testbed refuses it (409: the agent is terminated)."""
        try:
            return self.create_task(title, body, assignee_id=agent_id)
        except ProductApiError as error:
            if error.status_code == 409:
                return None
            raise

    def create_task(
        self, title: str, body: str = "", assignee_id: RecordId | None = None, parent_id: RecordId | None = None
    ) -> Task:
        payload = {"title": title, "body": body, "assignee_id": assignee_id, "parent_id": parent_id}
        return Task.model_validate(self._json("POST", "/api/tasks", json=payload))

    def send_message(self, task_id: RecordId, body: str) -> Comment:
        return Comment.model_validate(self._json("POST", f"/api/tasks/{task_id}/comments", json={"body": body}))

    def install_service(self, name: str, url: str) -> Service:
        return Service.model_validate(self._json("POST", "/api/services", json={"name": name, "url": url}))

    def add_connection(
        self, service_id: RecordId, name: str, credential: str, policy: str, agent_ids: list[RecordId]
    ) -> Connection:
        payload = {"name": name, "credential": credential, "policy": policy, "agent_ids": agent_ids}
        return Connection.model_validate(self._json("POST", f"/api/services/{service_id}/connections", json=payload))

    def set_chat_connectors(self, enabled: bool) -> Company:
        return Company.model_validate(self._json("PUT", "/api/company/settings", json={"chat_connectors": enabled}))

    def decide(self, interaction_id: RecordId, decision: str) -> httpx.Response:
        """Send a decision through the API (a replayed click): the raw answer, which may be a refusal."""
        return self.http.post(f"/api/interactions/{interaction_id}/decision", json={"decision": decision})

    def approve_anywhere(self, interaction_id: RecordId) -> dict[str, int]:
        """The testbed offers one route to approve a request: its card's decision."""
        return {"card": self.decide(interaction_id, "approve").status_code}

    def providers(self) -> list[ProviderEntry]:
        return [ProviderEntry.model_validate(p) for p in self._json("GET", "/api/providers")]

    def choose(self, interaction_id: RecordId, choice: str) -> httpx.Response:
        """Answer a provider question through the API (a replayed click): None declines, an aggregator approves."""
        decision = "decline" if choice == "None" else "approve"
        return self.http.post(
            f"/api/interactions/{interaction_id}/decision", json={"decision": decision, "choice": choice}
        )

    def stop_run(self, run_id: RecordId) -> StopResult:
        return StopResult.model_validate(self._json("POST", f"/api/runs/{run_id}/stop"))

    # ---- waiting ----------------------------------------------------------------

    @staticmethod
    def wait_for(
        probe: Callable[[], T | None], timeout: float = 30.0, interval: float = 0.1, what: str = "condition"
    ) -> T:
        return wait_for(probe, timeout, interval, what)

    def wait_for_task(
        self, task_id: RecordId, predicate: Callable[[Task], bool], timeout: float = 30.0, what: str = ""
    ) -> Task:
        def probe() -> Task | None:
            task = self.task(task_id)
            return task if predicate(task) else None

        return self.wait_for(probe, timeout, what=what or f"task {task_id}")

    def wait_until_done(self, task_id: RecordId, timeout: float = 60.0) -> Task:
        """Done and settled: nothing active, no message still waiting for the agent."""
        return self.wait_for_task(task_id, lambda t: t.status == "done" and t.settled, timeout, f"task {task_id} done")

    def wait_for_active_run(self, task_id: RecordId, timeout: float = 30.0) -> Run:
        def probe() -> Run | None:
            return next(
                (r for r in self.runs(task_id) if r.status == "running" and (r.identity.pid or r.identity.lease)), None
            )

        return self.wait_for(probe, timeout, what=f"a running run on task {task_id}")

    def wait_for_receipt(self, run_id: RecordId, tool: str, target: str = "", timeout: float = 30.0) -> Run:
        """Until the run has recorded a receipt for ``tool`` (and ``target`` when given)."""

        def probe() -> Run | None:
            run = self.run(run_id)
            hit = any(r.tool == tool and (not target or r.target == target) for r in run.receipts)
            return run if hit else None

        return self.wait_for(probe, timeout, what=f"receipt {tool} {target} on run {run_id}")

    def wait_until_file_saved(self, task_id: RecordId, filename: str, timeout: float = 30.0) -> Run:
        """Until a running run on the task has reported writing ``filename``: the moment to inject a fault."""
        run = self.wait_for_active_run(task_id, timeout)
        return self.wait_for_receipt(run.id, "write_file", filename, timeout)


def _agent(raw: dict[str, Any]) -> Agent:
    return Agent.model_validate({**raw, "paused_for_budget": raw.get("paused_reason") == "budget"})


def _routine(raw: dict[str, Any]) -> Routine:
    fires = [RoutineFire.model_validate(fire) for fire in raw["fires"]]
    return Routine(id=raw["id"], title=raw["title"], assignee_id=raw["assignee_id"], fires=fires)
