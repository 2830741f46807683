"""vibe-kanban's driver (:class:`harness.products.base.ProductDriver`): an instance and two pages; the rest is the defaults.

vibe-kanban issues no credentials of its own and serves its web UI from inside its binary, so the defaults
(no secret shapes, no published assets, nothing to warm up) hold."""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

from everyday_vibe_kanban import install
from everyday_vibe_kanban.instance import VibeKanbanInstance
from everyday_vibe_kanban.pages import BoardPage, TaskPanel
from harness.core.product_records import RecordId
from harness.products.base import InstanceError, ProductDriver


class VibeKanbanDriver(ProductDriver):
    name = "vibe-kanban"
    # Each Claude Code run's calls go through our metering proxy, which keeps them beside the instance.
    meters_model_calls = True

    def __init__(self) -> None:
        self._instances: weakref.WeakValueDictionary[str, VibeKanbanInstance] = weakref.WeakValueDictionary()

    def version(self) -> str | None:
        return install.installed_version()

    def start_instance(
        self,
        pace_s: float,
        defects: Sequence[str] = (),
        model_upstream: str | None = None,
        agent_time_limit_s: float | None = None,
    ) -> VibeKanbanInstance:
        """vibe-kanban is judged as it ships: no defects to switch on.

        ``model_upstream`` is where a Claude Code agent's metering proxy sends
        its calls (the replay server); ``agent_time_limit_s`` bounds each of its runs.
        """
        if defects:
            raise InstanceError(f"vibe-kanban has no product defects to switch on (asked for {', '.join(defects)})")
        instance = VibeKanbanInstance(pace=pace_s, model_upstream=model_upstream, agent_time_limit_s=agent_time_limit_s)
        self._instances[instance.base_url] = instance
        try:
            return instance.start()
        except BaseException:
            instance.close()
            raise

    def _instance(self, base_url: str) -> VibeKanbanInstance:
        """The running instance at ``base_url``: its project and repository are where its pages lead."""
        found = self._instances.get(base_url.rstrip("/"))
        if found is None:
            raise InstanceError(f"no vibe-kanban instance of this driver runs at {base_url}")
        return found

    def task_list(self, page: Any, base_url: str) -> BoardPage:
        instance = self._instance(base_url)
        return BoardPage(page, base_url, instance.api.project["id"], instance.repo)

    def task_page(self, page: Any, base_url: str, task_id: RecordId) -> TaskPanel:
        instance = self._instance(base_url)
        return TaskPanel(page, base_url, str(task_id), instance.api.project["id"], instance.repo)


DRIVER = VibeKanbanDriver()
