"""The attempt deadline: every wait in a story draws from one budget."""

from __future__ import annotations

import time

from harness.core.verdicts import StoryFailed


class Deadline:
    """Counts down an attempt's time so no single wait can outlive the attempt."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._ends_at = time.monotonic() + seconds

    def remaining(self) -> float:
        return max(0.0, self._ends_at - time.monotonic())

    def budget(self, wanted: float | None = None) -> float:
        """Seconds a wait may take: what it wants, capped by what the attempt has left."""
        left = self.remaining()
        if left <= 0:
            raise self.exceeded("starting the next step")
        return left if wanted is None else min(wanted, left)

    def exceeded(self, waiting_for: str) -> StoryFailed:
        return StoryFailed(f"attempt deadline of {self.seconds:.0f} s exceeded while {waiting_for}")
