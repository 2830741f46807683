"""Waiting for a state instead of sleeping: one poll loop for drivers, journeys and faults.

Every expectation a story has of a product is a wait with a named ``what``,
so a state that never comes is reported as that expectation, not as a hang.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


class WaitTimeout(TimeoutError):
    """A waited-for state never came; the message says which."""


def wait_for(probe: Callable[[], T | None], timeout: float = 30.0, interval: float = 0.1, what: str = "condition") -> T:
    """Poll ``probe`` until it returns something truthy and return it; no caller ever sleeps."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while True:
        last = probe()
        if last:
            return last  # type: ignore[no-any-return]
        if time.monotonic() > deadline:
            raise WaitTimeout(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(interval)
