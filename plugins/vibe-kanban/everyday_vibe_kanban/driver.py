"""vibe-kanban's implementation of the product driver protocol (:class:`harness.products.base.ProductDriver`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from everyday_vibe_kanban import install
from everyday_vibe_kanban.instance import VibeKanbanInstance
from everyday_vibe_kanban.pages import BoardPage, TaskPanel
from harness.products.base import InstanceError
from harness.products.records import RecordId


class VibeKanbanDriver:
    name = "vibe-kanban"
    # vibe-kanban issues no credentials of its own: nothing of its shape can leak.
    secret_patterns: dict[str, re.Pattern[bytes]] = {}
    meters_model_calls = False

    def version(self) -> str | None:
        return install.installed_version()

    def published_assets(self) -> frozenset[str]:
        """Its web UI is inside the server binary; nothing on disk to exempt."""
        return frozenset()

    def warm_up(self, many_instances: bool) -> None:
        """Nothing to begin: each instance starts in about 4 s from the unpacked binary."""

    def cool_down(self) -> None:
        """Nothing to end: each instance stops whole."""

    def start_instance(
        self,
        pace_s: float,
        defects: Sequence[str] = (),
        model_upstream: str | None = None,
        agent_time_limit_s: float | None = None,
    ) -> VibeKanbanInstance:
        """vibe-kanban is judged as it ships: no defects to switch on, no model replay or time limit wired yet."""
        if defects:
            raise InstanceError(f"vibe-kanban has no product defects to switch on (asked for {', '.join(defects)})")
        if model_upstream or agent_time_limit_s:
            raise InstanceError("the vibe-kanban driver runs only the scripted agent (no replay, no time limit)")
        instance = VibeKanbanInstance(pace=pace_s)
        try:
            return instance.start()
        except BaseException:
            instance.close()
            raise

    def task_list(self, page: Any, base_url: str) -> BoardPage:
        return BoardPage(page, base_url)

    def task_page(self, page: Any, base_url: str, task_id: RecordId) -> TaskPanel:
        return TaskPanel(page, base_url, str(task_id))


DRIVER = VibeKanbanDriver()
