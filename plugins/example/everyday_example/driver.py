"""The product driver: a subclass of :class:`harness.products.base.ProductDriver` that writes only what differs.

A driver writes a ``name``, how an isolated instance starts, and the two pages
every story uses; every other member has a default (no credential shapes, no
published assets, nothing to warm up, and each capability refused with "no
cell: <product> lacks <capability>"). To keep the template runnable anywhere,
the example product *is* the testbed started under another name: a real driver
starts its own product on a free port with its own data, answers through a
:class:`harness.products.api.ProductApi` subclass, and keeps its selectors in
its page objects. docs/guides/add-a-product.md walks through one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.core.product_records import RecordId
from harness.products.base import InstanceError, ProductDriver
from harness.products.testbed import forked
from harness.products.testbed.instance import TestbedInstance
from harness.products.testbed.pages import TaskListPage, TaskPage
from harness.products.testbed.secrets import SECRET_PATTERNS


class ExampleDriver(ProductDriver):
    name = "example"
    secret_patterns = SECRET_PATTERNS

    def start_instance(
        self,
        pace_s: float,
        defects: Sequence[str] = (),
        model_upstream: str | None = None,
        agent_time_limit_s: float | None = None,
    ) -> TestbedInstance:
        """A fresh instance on its own port and data folder; the example has no defects to switch on."""
        if defects:
            raise InstanceError(f"the example product has no defects to switch on (asked for {', '.join(defects)})")
        return TestbedInstance(
            pace=pace_s, model_upstream=model_upstream, agent_time_limit_s=agent_time_limit_s
        ).start()

    def cool_down(self) -> None:
        """The testbed forks its controllers from a helper process the first start began: end it with the cells."""
        forked.stop()

    def task_list(self, page: Any, base_url: str) -> TaskListPage:
        return TaskListPage(page, base_url)

    def task_page(self, page: Any, base_url: str, task_id: RecordId) -> TaskPage:
        return TaskPage(page, base_url, int(task_id))


DRIVER = ExampleDriver()
