"""The invariant watch: while a story waits, sample the product and keep every broken invariant with its moment.

Sampling happens inside the journey's waits (at most every ``interval_s``),
so it costs nothing when nobody waits and catches states a product passes
through on the way (a task shown Done while its run still writes). A broken
rule counts once it lasts ``CONFIRM_S`` over consecutive samples: one read
that tears across a write, or a badge the page has not refreshed yet, is
not a product defect; a state that lasts is. Events (a delivery's bytes, a
runner identity that changed) count at once.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

import httpx

from harness.checks.facts import lifecycle_facts
from harness.checks.invariants import (
    DELIVERY_BYTES,
    MIN_SAMPLES,
    NAMES,
    Violation,
    WatchSummary,
    held,
    runner_changed,
    runner_identity,
    violations,
)
from harness.checks.lifecycle import ACTIVE_STATUSES, RunFacts
from harness.core.observable import Fact
from harness.core.product_records import RecordId
from harness.core.records import CheckRecord
from harness.evidence.moments import sample_of
from harness.evidence.recorder import EvidenceRecorder
from harness.products.api import ProductApi
from harness.products.http import ProductApiError

SAMPLE_INTERVAL_S = 0.5
CONFIRM_S = 1.0
# What a sample may meet while the product restarts under a fault: skip that sample, keep watching.
# Anything else (a record that breaks its contract, a harness bug) ends the story like any other error.
UNREADABLE = (httpx.TransportError, ProductApiError)


class InvariantWatch:
    def __init__(
        self,
        api: ProductApi,
        evidence: EvidenceRecorder,
        screenshot: Callable[[str], None],
        interval_s: float = SAMPLE_INTERVAL_S,
        done_statuses: tuple[str, ...] = ("done",),
        observes: Sequence[Fact] | None = None,
    ) -> None:
        """``observes``: the facts the cell's driver declared (None: every rule judged as if all were)."""
        self.api = api
        self.observes = observes
        self.evidence = evidence
        self.screenshot = screenshot
        self.interval_s = interval_s
        self.done_statuses = done_statuses  # the product's word for finished work (its environment's)
        self.samples = 0
        self.active_samples = 0  # samples that saw a run queued or running
        self.unreadable: list[str] = []  # why each sample that could not be read was dropped
        self._next_at = 0.0
        self._suspects: dict[tuple[str, str], float] = {}
        self._identities: dict[str, tuple[object, ...]] = {}
        self._broken: dict[tuple[str, str], Violation] = {}
        self._bytes_checked: set[object] = set()

    def sample(self, shown: Callable[[], tuple[RecordId, str]] | None = None) -> None:
        """Check every invariant now, unless the last sample was less than ``interval_s`` ago.

        ``shown`` reads the page the person looks at: (task id, status on its badge).
        """
        now = time.monotonic()
        if now < self._next_at and self._has_evidence():
            return
        self._next_at = now + self.interval_s
        try:
            on_page = shown() if shown else None
            tasks = [self.api.task(summary.id) for summary in self.api.tasks()]
            self.evidence.record_samples.add(sample_of(tasks))
            facts = lifecycle_facts(
                tasks, [], [], None, max_runs=None, done_statuses=self.done_statuses, observes=self.observes
            )
            states = violations(facts) + _badge(on_page, tasks, self.done_statuses)
            events = self._delivery_bytes(tasks) + self._identity_changes(facts.runs)
        except UNREADABLE as error:
            self.unreadable.append(f"{type(error).__name__}: {str(error).strip()[:120]}")
            return
        self.samples += 1
        self.active_samples += any(run.status in ACTIVE_STATUSES for run in facts.runs)
        seen = {(v.invariant, v.subject): v for v in states}
        self._suspects = {key: self._suspects.get(key, now) for key in seen}
        lasting = [v for key, v in seen.items() if now - self._suspects[key] >= CONFIRM_S]
        for violation in lasting + events:
            if (violation.invariant, violation.subject) not in self._broken:
                self._record(violation)

    def _has_evidence(self) -> bool:
        """Enough looks for a held invariant to count (:func:`harness.checks.invariants.held`): until then every
        wait samples, however soon after the last look, so a quick story is watched too."""
        return self.samples >= MIN_SAMPLES and self.active_samples > 0

    def conclude(self) -> None:
        """One check per invariant that was not seen broken, so the package says what was watched and how often.

        No evidence, no pass: with no sample read, an invariant did not hold,
        it went unseen; each is recorded not observable, with the reason.
        """
        for _ in range(MIN_SAMPLES):  # a story whose waits looked once gets its last looks now, at its end
            if not self.samples or self.samples >= MIN_SAMPLES:
                break
            self._next_at = 0.0
            self.sample()
        broken = {invariant for invariant, _ in self._broken}
        summary = WatchSummary(samples=self.samples, active_samples=self.active_samples)
        for name in NAMES:
            if name in broken:
                continue
            verdict = held(name, summary)
            if verdict is not None:
                self.evidence.keep(verdict)
            else:
                unseen = CheckRecord.not_observable(f"invariant.{name}", self._why_no_sample())
                self.evidence.keep(unseen, harness_unseen=True)

    def _why_no_sample(self) -> str:
        if not self.unreadable:
            return "the story never waited, so the product was never sampled"
        return f"none of {len(self.unreadable)} sample(s) could be read (the last: {self.unreadable[-1]})"

    def _delivery_bytes(self, tasks: list) -> list[Violation]:  # type: ignore[type-arg]
        """Each delivery's bytes, fetched once, must hash to the sha256 the product recorded for it."""
        found = []
        for delivery in (d for task in tasks for d in task.deliveries if d.id not in self._bytes_checked):
            actual = hashlib.sha256(self.api.delivery_bytes(delivery.id)).hexdigest()
            self._bytes_checked.add(delivery.id)
            if actual != delivery.sha256:
                found.append(
                    Violation(
                        invariant=DELIVERY_BYTES,
                        subject=f"delivery {delivery.id}",
                        detail=f"delivery {delivery.id} serves bytes with sha256 {actual[:12]}, "
                        f"recorded {delivery.sha256[:12]}",
                    )
                )
        return found

    def _identity_changes(self, runs: list[RunFacts]) -> list[Violation]:
        """A run's runner (instance, pid, start time, or a sandbox's lease), once known, is the same for its life."""
        found = []
        for run in runs:
            identity = runner_identity(run)
            if identity is None:
                continue
            known = self._identities.setdefault(run.id, identity)
            if (changed := runner_changed(known, run)) is not None:
                found.append(changed)
        return found

    def _record(self, violation: Violation) -> None:
        self._broken[(violation.invariant, violation.subject)] = violation
        at = datetime.now(UTC).isoformat(timespec="milliseconds")
        step = f"invariant {violation.invariant} broken"
        self.screenshot(step)
        self.evidence.check(
            f"invariant.{violation.invariant}",
            False,
            f"{violation.detail} (seen at {at})",
            [self.evidence.screenshots[-1]] if self.evidence.screenshots else [],
        )


def _badge(
    on_page: tuple[RecordId, str] | None,
    tasks: list,  # type: ignore[type-arg]
    done_statuses: tuple[str, ...],
) -> list[Violation]:
    """The page's badge says finished (in the product's word) while its own records show a run still running."""
    if on_page is None or on_page[1] not in done_statuses:
        return []
    task_id = str(on_page[0])
    running = [run.id for task in tasks if str(task.id) == task_id for run in task.runs if run.status == "running"]
    if not running:
        return []
    return [
        Violation(
            invariant="done-while-active",
            subject=f"page of task {task_id}",
            detail=f"the page shows task {task_id} {on_page[1]} while run {running[0]} is still running",
        )
    ]
