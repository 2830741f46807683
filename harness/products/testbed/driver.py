"""The testbed's implementation of the product driver protocol."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.products.testbed.instance import TestbedInstance
from harness.products.testbed.pages import TaskListPage, TaskPage
from harness.products.testbed.secrets import SECRET_PATTERNS


class TestbedDriver:
    __test__ = False  # not a pytest test class, despite the name

    name = "testbed"
    secret_patterns = SECRET_PATTERNS

    def start_instance(self, pace_s: float, defects: Sequence[str] = (), model_upstream: str | None = None) -> TestbedInstance:
        """``model_upstream``: where live agents' metering proxies send model calls (the replay server)."""
        return TestbedInstance(pace=pace_s, defects=defects, model_upstream=model_upstream).start()

    def task_list(self, page: Any, base_url: str) -> TaskListPage:
        return TaskListPage(page, base_url)

    def task_page(self, page: Any, base_url: str, task_id: int) -> TaskPage:
        return TaskPage(page, base_url, task_id)
