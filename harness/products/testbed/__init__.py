"""The driver for the reference testbed: everything a story knows about the product.

Stories talk only to these classes. Pointing the harness at another product
means writing another driver with the same shape: an API client
(:mod:`.api`), page objects (:mod:`.pages`) and an isolated instance
(:mod:`.instance`).
"""

from .api import ApiClient, ApiError, WaitTimeout
from .instance import InstanceError, TestbedInstance

__all__ = ["ApiClient", "ApiError", "InstanceError", "TestbedInstance", "WaitTimeout"]
