"""The driver for the reference testbed (``testbed/``): the product the stories drive by default.

An API client (:mod:`.api`), page objects (:mod:`.pages`), an isolated
instance (:mod:`.instance`) and the shapes of its credentials
(:mod:`.secrets`), bound together as ``DRIVER`` (:mod:`.driver`).
"""

from harness.products.base import InstanceError

from .api import ApiClient, WaitTimeout
from .driver import TestbedDriver
from .instance import TestbedInstance

DRIVER = TestbedDriver()

__all__ = ["DRIVER", "ApiClient", "InstanceError", "TestbedInstance", "WaitTimeout"]
