"""The in-memory fake product: the driver seam's test double, as httpx's MockTransport is its transport's.

A driver over plain Python objects (:class:`~harness.products.fake.world.FakeWorld`):
no browser, server, process or Docker. Story journeys, checks and the
evidence recorder are unit-tested against it; its defects
(:data:`~harness.products.fake.world.DEFECTS`) let a check's test show the
check catches what it names. It writes four seam members, like any driver:
``name``, ``start_instance``, ``task_list`` and ``task_page``.
"""

from __future__ import annotations

import functools
import itertools
import shutil
import signal
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.core.product_records import RecordId
from harness.products.base import ProductDriver
from harness.products.fake.api import FakeApi
from harness.products.fake.pages import FakeTaskList, FakeTaskPage
from harness.products.fake.world import FakeWorld

_NUMBERS = itertools.count(1)


class FakeInstance:
    """One fake product: its world, an API over it, and a data folder for the workspaces a scan reads."""

    def __init__(self, world: FakeWorld) -> None:
        self.world = world
        self.base_url = f"http://fake-{next(_NUMBERS)}.invalid"
        self._api = FakeApi(world)

    @functools.cached_property
    def data_dir(self) -> Path:
        """Made when first asked for (a scan of the workspaces), so a test that never scans leaves no folder."""
        return Path(tempfile.mkdtemp(prefix="everyday-fake-"))

    @property
    def api(self) -> FakeApi:
        return self._api

    @property
    def agent_workspaces(self) -> Path:
        return self.data_dir / "workspaces"

    def issued_secrets(self) -> dict[str, str]:
        return {}

    def start(self) -> FakeInstance:
        """Started means a controller answers: a second start is a controller restart (a new instance id)."""
        if getattr(self, "_started", False):
            self.world.restart_controller()
        self._started = True
        return self

    def stop_controller(self, sig: signal.Signals = signal.SIGTERM) -> None:
        """The controller is gone until ``start``; the runs go on, as the testbed's runners do."""

    def close(self) -> None:
        """Nothing runs; the data folder goes, as a testbed instance's does."""
        if "data_dir" in self.__dict__:
            shutil.rmtree(self.data_dir, ignore_errors=True)

    def log_paths(self) -> list[Path]:
        return []

    def process_alive(self, pid: int, start_time: float) -> bool:
        return False

    def process_group_alive(self, pgid: int) -> bool:
        return False


class FakeDriver(ProductDriver):
    __test__ = False
    name = "fake"

    def __init__(self) -> None:
        self._worlds: dict[str, FakeWorld] = {}

    def start_instance(
        self,
        pace_s: float,
        defects: Sequence[str] = (),
        model_upstream: str | None = None,
        agent_time_limit_s: float | None = None,
    ) -> FakeInstance:
        instance = FakeInstance(FakeWorld(tuple(defects)))
        self._worlds[instance.base_url] = instance.world
        return instance.start()

    def task_list(self, page: Any, base_url: str) -> FakeTaskList:
        return FakeTaskList(self._worlds[base_url])

    def task_page(self, page: Any, base_url: str, task_id: RecordId) -> FakeTaskPage:
        return FakeTaskPage(self._worlds[base_url], task_id)


DRIVER = FakeDriver()
