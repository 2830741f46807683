"""The testbed's driver: every capability, and the container sandbox besides the process one."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any, Literal

from harness.core.product_records import RecordId
from harness.products.base import ProductDriver
from harness.products.testbed import forked
from harness.products.testbed import sandbox as sandboxes
from harness.products.testbed.instance import DATA_PREFIX, TestbedInstance
from harness.products.testbed.pages import HireFormPage, TaskListPage, TaskPage
from harness.products.testbed.routine_pages import CostPage, RoutinePage, RoutinesPage
from harness.products.testbed.secrets import SECRET_PATTERNS
from harness.products.testbed.skill_pages import TaskSkillsPanel
from harness.products.testbed.team_pages import AgentPage, ApprovalsPanel

PROJECT_ROOT = Path(__file__).resolve().parents[3]
# The product and the agent runtime its runners run (the scripted agent, the CLI runner, the metering proxy).
TESTBED_SOURCES = (PROJECT_ROOT / "testbed", PROJECT_ROOT / "agents")


@cache
def testbed_digest() -> str:
    """sha256 over the Python sources of the testbed and of the agents its runners run (names and bytes)."""
    digest = hashlib.sha256()
    for path in sorted(path for folder in TESTBED_SOURCES for path in folder.rglob("*.py")):
        digest.update(str(path.relative_to(PROJECT_ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


class TestbedDriver(ProductDriver):
    __test__ = False  # not a pytest test class, despite the name

    name = "testbed"
    secret_patterns = SECRET_PATTERNS
    meters_model_calls = True  # every run's metering proxy has each call recorded before it forwards it

    def version(self) -> str:
        """The testbed ships with the harness: its version is a digest of its sources and its runners' agents."""
        return f"src-{testbed_digest()[:12]}"

    def warm_up(self, many_instances: bool) -> None:
        forked.warm_up(many_controllers=many_instances)

    def cool_down(self) -> None:
        forked.stop()

    def remove_leftovers(self, run_folder: Path) -> None:
        """The sandboxes and socket folders of container instances whose data folders are in ``run_folder``: a
        torn-down instance removed its own, so only a killed run's are left (no engine is asked otherwise)."""
        sandboxes.remove_leftovers(run_folder.glob(f"{DATA_PREFIX}*"))

    def start_instance(
        self,
        pace_s: float,
        defects: Sequence[str] = (),
        model_upstream: str | None = None,
        agent_time_limit_s: float | None = None,
        sandbox: Literal["process", "container"] = "process",
    ) -> TestbedInstance:
        """``model_upstream``: where live agents' metering proxies send model calls (the replay server);
        ``sandbox``: where its runners execute (``container``: each in its own container, testbed/sandbox)."""
        return TestbedInstance(
            pace=pace_s,
            defects=defects,
            model_upstream=model_upstream,
            agent_time_limit_s=agent_time_limit_s,
            sandbox=sandbox,
        ).start()

    def task_list(self, page: Any, base_url: str) -> TaskListPage:
        return TaskListPage(page, base_url)

    def task_page(self, page: Any, base_url: str, task_id: RecordId) -> TaskPage:
        return TaskPage(page, base_url, task_id)

    def task_skills(self, page: Any, base_url: str, task_id: RecordId) -> TaskSkillsPanel:
        return TaskSkillsPanel(page, base_url, task_id)

    def services_page(self, page: Any, base_url: str) -> TaskListPage:
        """The start page, which lists the services and their connections."""
        return TaskListPage(page, base_url).open()

    def hire_form(self, page: Any, base_url: str) -> HireFormPage:
        return HireFormPage(page, base_url)

    def approvals_page(self, page: Any, base_url: str) -> ApprovalsPanel:
        return ApprovalsPanel(page, base_url)

    def agent_page(self, page: Any, base_url: str, agent_id: RecordId) -> AgentPage:
        return AgentPage(page, base_url, agent_id)

    def routines_page(self, page: Any, base_url: str) -> RoutinesPage:
        return RoutinesPage(page, base_url)

    def routine_page(self, page: Any, base_url: str, routine_id: RecordId) -> RoutinePage:
        return RoutinePage(page, base_url, routine_id)

    def cost_page(self, page: Any, base_url: str) -> CostPage:
        return CostPage(page, base_url)
