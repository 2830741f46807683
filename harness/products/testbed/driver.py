"""The testbed's implementation of the product driver protocol."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from harness.products.testbed import forked
from harness.products.testbed.instance import TestbedInstance
from harness.products.testbed.pages import HireFormPage, TaskListPage, TaskPage
from harness.products.testbed.secrets import SECRET_PATTERNS
from harness.products.testbed.skill_pages import TaskSkillsPanel

TESTBED_SOURCES = Path(__file__).resolve().parents[3] / "testbed"


@cache
def testbed_digest() -> str:
    """sha256 over the testbed's Python sources (names and bytes)."""
    digest = hashlib.sha256()
    for path in sorted(TESTBED_SOURCES.rglob("*.py")):
        digest.update(str(path.relative_to(TESTBED_SOURCES)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


class TestbedDriver:
    __test__ = False  # not a pytest test class, despite the name

    name = "testbed"
    secret_patterns = SECRET_PATTERNS
    meters_model_calls = True  # every run's metering proxy has each call recorded before it forwards it

    def version(self) -> str:
        """The testbed ships with the harness: its version is a digest of its own sources."""
        return f"src-{testbed_digest()[:12]}"

    def published_assets(self) -> frozenset[str]:
        """The testbed is ours and renders its pages per request: nothing in it is exempt from the scan."""
        return frozenset()

    def warm_up(self, many_instances: bool) -> None:
        forked.warm_up(many_controllers=many_instances)

    def cool_down(self) -> None:
        forked.stop()

    def start_instance(
        self,
        pace_s: float,
        defects: Sequence[str] = (),
        model_upstream: str | None = None,
        agent_time_limit_s: float | None = None,
    ) -> TestbedInstance:
        """``model_upstream``: where live agents' metering proxies send model calls (the replay server)."""
        return TestbedInstance(
            pace=pace_s, defects=defects, model_upstream=model_upstream, agent_time_limit_s=agent_time_limit_s
        ).start()

    def task_list(self, page: Any, base_url: str) -> TaskListPage:
        return TaskListPage(page, base_url)

    def task_page(self, page: Any, base_url: str, task_id: int) -> TaskPage:
        return TaskPage(page, base_url, task_id)

    def task_skills(self, page: Any, base_url: str, task_id: int) -> TaskSkillsPanel:
        return TaskSkillsPanel(page, base_url, task_id)

    def services_page(self, page: Any, base_url: str) -> TaskListPage:
        """The start page, which lists the services and their connections."""
        return TaskListPage(page, base_url).open()

    def hire_form(self, page: Any, base_url: str) -> HireFormPage:
        return HireFormPage(page, base_url)
