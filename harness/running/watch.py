"""The invariant watch: while a story waits, sample the product and keep every broken invariant with its moment.

Sampling happens inside the journey's waits (at most every ``interval_s``),
so it costs nothing when nobody waits and catches states a product passes
through on the way (a task shown Done while its run still writes). A broken
rule counts once it is seen in two samples in a row: one read that tears
across a write is not a product defect, a state that lasts is.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from datetime import datetime, timezone

import httpx

from harness.checks.facts import lifecycle_facts
from harness.checks.invariants import DELIVERY_BYTES, NAMES, Violation, violations
from harness.evidence.recorder import EvidenceRecorder
from harness.products.base import ProductApi

SAMPLE_INTERVAL_S = 0.5
# What a sample may meet while the product restarts under a fault: skip that sample, keep watching.
UNREADABLE = (httpx.HTTPError, RuntimeError, ValueError)


class InvariantWatch:
    def __init__(self, api: ProductApi, evidence: EvidenceRecorder, screenshot: Callable[[str], None],
                 interval_s: float = SAMPLE_INTERVAL_S) -> None:  # fmt: skip
        self.api = api
        self.evidence = evidence
        self.screenshot = screenshot
        self.interval_s = interval_s
        self.samples = 0
        self._next_at = 0.0
        self._suspects: set[tuple[str, str]] = set()
        self._broken: dict[tuple[str, str], Violation] = {}
        self._bytes_checked: set[object] = set()

    def sample(self) -> None:
        """Check every invariant now, unless the last sample was less than ``interval_s`` ago."""
        if time.monotonic() < self._next_at:
            return
        self._next_at = time.monotonic() + self.interval_s
        try:
            tasks = [self.api.task(summary.id) for summary in self.api.tasks()]
            found = violations(lifecycle_facts(tasks, [], [], None, max_runs=1))
            found += self._delivery_bytes(tasks)
        except UNREADABLE:
            return
        self.samples += 1
        seen = {(v.invariant, v.subject): v for v in found}
        for key, violation in seen.items():
            # Bytes are read once per delivery, so their verdict needs no second sample.
            if key not in self._broken and (key in self._suspects or key[0] == DELIVERY_BYTES):
                self._record(violation)
        self._suspects = set(seen)

    def conclude(self) -> None:
        """One passed check per invariant that held, so the package says what was watched and how often."""
        broken = {invariant for invariant, _ in self._broken}
        for name in NAMES:
            if name not in broken:
                self.evidence.check(f"invariant.{name}", True, f"held in all {self.samples} samples")

    def _delivery_bytes(self, tasks: list) -> list[Violation]:  # type: ignore[type-arg]
        """Each delivery's bytes, fetched once, must hash to the sha256 the product recorded for it."""
        found = []
        for delivery in (d for task in tasks for d in task.deliveries if d.id not in self._bytes_checked):
            actual = hashlib.sha256(self.api.delivery_bytes(delivery.id)).hexdigest()
            self._bytes_checked.add(delivery.id)
            if actual != delivery.sha256:
                found.append(Violation(invariant=DELIVERY_BYTES, subject=f"delivery {delivery.id}",
                                       detail=f"delivery {delivery.id} serves bytes with sha256 {actual[:12]}, "
                                              f"recorded {delivery.sha256[:12]}"))  # fmt: skip
        return found

    def _record(self, violation: Violation) -> None:
        self._broken[(violation.invariant, violation.subject)] = violation
        at = datetime.now(timezone.utc).isoformat(timespec="milliseconds")
        step = f"invariant {violation.invariant} broken"
        self.screenshot(step)
        self.evidence.check(f"invariant.{violation.invariant}", False, f"{violation.detail} (seen at {at})",
                            [self.evidence.screenshots[-1]] if self.evidence.screenshots else [])  # fmt: skip
