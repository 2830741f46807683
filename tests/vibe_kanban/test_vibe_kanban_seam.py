"""vibe-kanban's driver writes only its instance and two pages, and serves the one capability it declares."""

from __future__ import annotations

from everyday_vibe_kanban.api import VibeKanbanApi
from everyday_vibe_kanban.driver import VibeKanbanDriver
from everyday_vibe_kanban.product import PRODUCT
from harness.products.api import ProductApi
from harness.products.base import ProductDriver
from harness.products.capabilities import overridden, unserved


def test_every_declared_capability_is_served_and_the_rest_is_the_defaults() -> None:
    assert overridden(VibeKanbanDriver, ProductDriver) == {
        "meters_model_calls",
        "version",
        "start_instance",
        "task_list",
        "task_page",
    }
    served = overridden(VibeKanbanDriver, ProductDriver) | overridden(VibeKanbanApi, ProductApi)
    assert unserved(PRODUCT.capabilities, served) == {}
