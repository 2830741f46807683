"""The fake product's API: :class:`~harness.products.api.ProductApi` answered from a :class:`FakeWorld`, no HTTP.

Each read moves the world one step first, as time passing would on a real
product, so a journey's waits see the agent work; writes act at once.
"""

from __future__ import annotations

from typing import Any

from harness.core.product_records import Activity, Agent, Company, Controller, RecordId, Run, Task, TaskSummary
from harness.products.api import ProductApi
from harness.products.fake.world import FakeWorld


class FakeApi(ProductApi):
    product = "the fake product"
    moves_only_when_read = True

    def __init__(self, world: FakeWorld) -> None:
        self.world = world

    def _read(self) -> FakeWorld:
        self.world.step()
        return self.world

    def health(self) -> dict[str, Any]:
        return {"ok": True}

    def controller(self) -> Controller:
        return self.world.controller()

    def company(self) -> Company:
        return self.world.company

    def agents(self) -> list[Agent]:
        return list(self.world.agents)

    def tasks(self) -> list[TaskSummary]:
        world = self._read()
        return [world.summary(task) for task in world.tasks.values()]

    def task(self, task_id: RecordId) -> Task:
        return self._read().task(task_id)

    def run(self, run_id: RecordId) -> Run:
        return self._read().run(run_id)

    def activity(self) -> list[Activity]:
        return list(self.world.activity)

    def workspace_hashes(self, task_id: RecordId) -> dict[str, str]:
        return self.world.workspace_hashes(task_id)

    def delivery_bytes(self, delivery_id: RecordId) -> bytes:
        return self.world.delivery_bytes(delivery_id)

    def create_agent(
        self,
        name: str,
        role: str = "coding agent",
        reports_to: RecordId | None = None,
        adapter: str = "scripted",
        model: str = "default",
    ) -> Agent:
        return self.world.hire(name, role, reports_to, adapter, model)
