"""Paperclip's driver: every page a capability it declares needs.

The harness reads no per-run model calls from Paperclip (only the monthly spend), and each instance starts from its
installed template and stops whole: the defaults for ``meters_model_calls``, ``warm_up`` and ``cool_down`` hold.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

from everyday_paperclip import install
from everyday_paperclip.cost_pages import CostPage
from everyday_paperclip.instance import PaperclipInstance
from everyday_paperclip.pages import ConnectionsPage, IssueListPage, IssuePage
from everyday_paperclip.routine_pages import RoutinePage, RoutinesPage
from everyday_paperclip.secrets import SECRET_PATTERNS
from everyday_paperclip.skill_pages import ActivityFeedSkills
from everyday_paperclip.team_pages import AgentPage, ApprovalsPage, HireDesk
from harness.core.product_records import RecordId
from harness.products.base import InstanceError, ProductDriver


class PaperclipDriver(ProductDriver):
    name = "paperclip"
    secret_patterns = SECRET_PATTERNS

    def __init__(self) -> None:
        # By base URL, for the hire desk, which acts through its instance's API; an instance nobody holds any more
        # (its attempt is over) drops out by itself.
        self._running: weakref.WeakValueDictionary[str, PaperclipInstance] = weakref.WeakValueDictionary()

    def version(self) -> str | None:
        """The installed ``paperclipai`` release (the pin, once ``make paperclip`` ran)."""
        return install.installed_version()

    def published_assets(self) -> frozenset[str]:
        """The installed release's built web UI, which Paperclip serves to every browser."""
        return install.published_ui_digests()

    def start_instance(
        self,
        pace_s: float,
        defects: Sequence[str] = (),
        model_upstream: str | None = None,
        agent_time_limit_s: float | None = None,
    ) -> PaperclipInstance:
        """Paperclip is judged as it ships: it has no defects to switch on, so any name is refused.

        ``model_upstream`` (the replay server) is where its CLI agents' model
        calls go; a wall-clock limit of our own it cannot enforce on its
        adapters, so asking for one is refused rather than ignored.
        """
        if defects:
            raise InstanceError(f"Paperclip has no product defects to switch on (asked for {', '.join(defects)})")
        if agent_time_limit_s:
            raise InstanceError("an agent time limit is not wired on Paperclip's adapters")
        instance = PaperclipInstance(pace=pace_s, model_upstream=model_upstream)
        try:
            self._running[instance.base_url.rstrip("/")] = instance
            return instance.start()
        except BaseException:
            instance.close()
            raise

    def task_list(self, page: Any, base_url: str) -> IssueListPage:
        return IssueListPage(page, base_url)

    def task_page(self, page: Any, base_url: str, task_id: RecordId) -> IssuePage:
        return IssuePage(page, base_url, str(task_id))

    def services_page(self, page: Any, base_url: str) -> ConnectionsPage:
        return ConnectionsPage(page, base_url).open()

    def approvals_page(self, page: Any, base_url: str) -> ApprovalsPage:
        return ApprovalsPage(page, base_url)

    def agent_page(self, page: Any, base_url: str, agent_id: RecordId) -> AgentPage:
        return AgentPage(page, base_url, agent_id)

    def routines_page(self, page: Any, base_url: str) -> RoutinesPage:
        return RoutinesPage(page, base_url)

    def routine_page(self, page: Any, base_url: str, routine_id: RecordId) -> RoutinePage:
        return RoutinePage(page, base_url, routine_id)

    def cost_page(self, page: Any, base_url: str) -> CostPage:
        return CostPage(page, base_url)

    def task_skills(self, page: Any, base_url: str, task_id: RecordId) -> ActivityFeedSkills:
        return ActivityFeedSkills(page, base_url, task_id)

    def hire_form(self, page: Any, base_url: str) -> HireDesk:
        return HireDesk(page, base_url, self._running[base_url.rstrip("/")].api)
