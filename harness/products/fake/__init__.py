"""The in-memory fake product (:mod:`.driver`): the seam's test double, with defects a check test can switch on."""

from harness.products.fake.driver import DRIVER, FakeDriver, FakeInstance
from harness.products.fake.world import DEFECTS, FakeWorld

__all__ = ["DEFECTS", "DRIVER", "FakeDriver", "FakeInstance", "FakeWorld"]
