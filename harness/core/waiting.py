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


PATIENT_AFTER_S = 10.0
PATIENT_INTERVAL_S = 0.5
"""A wait that has lasted ``PATIENT_AFTER_S`` looks at most every ``PATIENT_INTERVAL_S``: a state that took that long
is not a fault's narrow window (those come within seconds of the step before), and each look is a request the
product serves, for as long as a real agent works or a stuck one runs to the deadline."""


def wait_for(probe: Callable[[], T | None], timeout: float = 30.0, interval: float = 0.1, what: str = "condition") -> T:
    """Poll ``probe`` until it returns something truthy and return it; no caller ever sleeps."""
    started = time.monotonic()
    deadline = started + timeout
    last: Any = None
    while True:
        last = probe()
        if last:
            return last  # type: ignore[no-any-return]
        now = time.monotonic()
        if now > deadline:
            raise WaitTimeout(f"timed out after {timeout:.0f} s waiting for {what}")
        pause = max(interval, PATIENT_INTERVAL_S) if now - started >= PATIENT_AFTER_S else interval
        time.sleep(min(pause, deadline - now + 0.01))  # the last look comes at the deadline, not a pause after it
