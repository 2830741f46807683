"""The invariant watch's samples, and the pure rule that judges the invariants over all of them.

While a story runs, the harness looks at the product (at most every half
second) and keeps each look as a :class:`WatchSample`: when it was taken,
where each part was read, and the product's records as they were at that
moment. The invariants are decided afterwards, by :func:`watched_invariants`
over the whole list, so a regrade applies a corrected rule to the very same
looks. The live watch folds the same looks through :class:`Looks` as they
come, only to know when to take a screenshot of a broken rule.

A broken state counts once it lasts ``CONFIRM_S`` over consecutive looks: one
read that tears across a write, or a badge the page has not refreshed yet,
is not a product defect; a state that lasts is. Events (a delivery served
with other bytes, a runner identity that changed) count at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from pydantic import BaseModel, Field

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
from harness.checks.lifecycle import ACTIVE_STATUSES, DeliveryFacts, LifecycleFacts, MessageFacts, RunFacts, TaskFacts
from harness.core.observable import Fact
from harness.core.records import CheckRecord

CONFIRM_S = 1.0


class SampledRecords(BaseModel):
    """The product's records at one look, as the product-neutral facts the invariants judge."""

    tasks: list[TaskFacts]
    runs: list[RunFacts]
    messages: list[MessageFacts]
    deliveries: list[DeliveryFacts] = Field(default_factory=list)


class ShownBadge(BaseModel):
    """The status badge of the task page the person had open, read off the page."""

    task_id: str
    status: str


class WatchSample(BaseModel):
    """One look of the invariant watch, kept in the package as it was taken."""

    at: datetime = Field(description="when the look was taken, on the harness's clock")
    sources: list[str] = Field(default_factory=list, description="where each part of the look was read")
    records: SampledRecords | None = Field(None, description="the product's records; None: the look failed")
    badge: ShownBadge | None = Field(None, description="the open page's badge; None: no task page was open")
    served: dict[str, str] = Field(
        default_factory=dict, description="delivery id -> sha256 of the bytes the product served at this look"
    )
    unreadable: str | None = Field(None, description="why the look could not be read (a product restarting)")
    screenshot: str | None = Field(None, description="the screen kept at this look (a rule seen broken)")


def _badge(sample: WatchSample, done_statuses: Sequence[str]) -> list[Violation]:
    """The page's badge says finished (in the product's word) while the records show a run of its task running."""
    badge, records = sample.badge, sample.records
    if badge is None or records is None or badge.status not in done_statuses:
        return []
    running = [run.id for run in records.runs if run.task_id == badge.task_id and run.status == "running"]
    if not running:
        return []
    return [
        Violation(
            invariant="done-while-active",
            subject=f"page of task {badge.task_id}",
            detail=f"the page shows task {badge.task_id} {badge.status} while run {running[0]} is still running",
        )
    ]


def _served_other_bytes(sample: WatchSample) -> list[Violation]:
    """Each delivery's bytes, as served at this look, hash to the sha256 the product recorded for it."""
    recorded = {d.id: d.sha256 for d in sample.records.deliveries} if sample.records else {}
    return [
        Violation(
            invariant=DELIVERY_BYTES,
            subject=f"delivery {delivery_id}",
            detail=f"delivery {delivery_id} serves bytes with sha256 {actual[:12]}, "
            f"recorded {recorded.get(delivery_id, '')[:12]}",
        )
        for delivery_id, actual in sample.served.items()
        if actual != recorded.get(delivery_id)
    ]


class Looks:
    """The looks so far, folded in order: how many, which saw work in progress, what lasted broken.

    The live watch and :func:`watched_invariants` fold the same looks with
    this one class, so what the watch took a screenshot of is what the rule
    decides.
    """

    def __init__(self, done_statuses: Sequence[str], observes: Sequence[Fact] | None) -> None:
        self.done_statuses = list(done_statuses)
        self.observes = None if observes is None else list(observes)
        self.read = 0
        self.active = 0
        self.unreadable: list[str] = []
        self.broken: dict[tuple[str, str], tuple[Violation, int]] = {}  # first broken, and at which look
        self._suspects: dict[tuple[str, str], datetime] = {}  # of the records, read at every look
        self._page_suspects: dict[tuple[str, str], datetime] = {}  # of the open page, read at some looks only
        self._identities: dict[str, tuple[object, ...]] = {}
        self._seen = 0

    def look(self, sample: WatchSample) -> list[Violation]:
        """Fold one more look in; what it shows broken for the first time (lasting, or an event)."""
        index, self._seen = self._seen, self._seen + 1
        if sample.records is None:
            self.unreadable.append(sample.unreadable or "unreadable")
            return []
        records = sample.records
        facts = LifecycleFacts(
            tasks=records.tasks,
            runs=records.runs,
            messages=records.messages,
            deliveries=records.deliveries,
            done_statuses=self.done_statuses,
            observes=self.observes,
        )
        self.read += 1
        self.active += any(run.status in ACTIVE_STATUSES for run in records.runs)
        lasting = self._lasting(self._suspects, violations(facts), sample.at)
        if sample.badge is not None:  # a look that read no page (none open, or between waits) says nothing of it
            lasting += self._lasting(self._page_suspects, _badge(sample, self.done_statuses), sample.at)
        new = []
        for violation in lasting + _served_other_bytes(sample) + self._identity_changes(records.runs):
            key = (violation.invariant, violation.subject)
            if key not in self.broken:
                self.broken[key] = (violation, index)
                new.append(violation)
        return new

    @staticmethod
    def _lasting(suspects: dict[tuple[str, str], datetime], states: list[Violation], at: datetime) -> list[Violation]:
        """The states broken for ``CONFIRM_S`` by now; ``suspects`` (when each was first seen, in the looks that
        could see it) is brought up to this look in place: a state not seen now is no longer suspect."""
        seen = {(v.invariant, v.subject): v for v in states}
        first = {key: suspects.get(key, at) for key in seen}
        suspects.clear()
        suspects.update(first)
        return [v for key, v in seen.items() if (at - first[key]).total_seconds() >= CONFIRM_S]

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

    @property
    def enough(self) -> bool:
        """Enough looks for a held invariant to count: more than one, and one of them while a run was active."""
        return self.read >= MIN_SAMPLES and self.active > 0

    def why_none_read(self) -> str:
        if not self.unreadable:
            return "the story never waited, so the product was never sampled"
        return f"none of {len(self.unreadable)} sample(s) could be read (the last: {self.unreadable[-1]})"


def watched_invariants(
    samples: list[WatchSample], done_statuses: list[str], observes: list[Fact] | None
) -> list[CheckRecord]:
    """One check per invariant: failed for each subject seen broken (with its moment and the screen kept then),
    else held over at least ``MIN_SAMPLES`` looks (one while work was in progress, for an invariant about it), else
    not observable, with the reason.

    ``done_statuses``: the product's word for finished work; ``observes``: the facts the cell's driver declared
    (None: every rule judged as if all were). With no look read at all the harness never looked: each invariant
    is not observable, which says nothing of the product's data.
    """
    looks = Looks(done_statuses, observes)
    for sample in samples:
        looks.look(sample)
    checks = []
    for violation, index in looks.broken.values():
        at = samples[index].at.isoformat(timespec="milliseconds")
        # the screen kept at that look, or (for a look between the story's waits) at the next look that kept one
        shot = next((sample.screenshot for sample in samples[index:] if sample.screenshot), None)
        checks.append(
            CheckRecord(
                id=f"invariant.{violation.invariant}",
                passed=False,
                detail=f"{violation.detail} (seen at {at})",
                evidence=[shot] if shot else [],
            )
        )
    broken = {invariant for invariant, _ in looks.broken}
    summary = WatchSummary(samples=looks.read, active_samples=looks.active)
    for name in NAMES:
        if name in broken:
            continue
        verdict = held(name, summary)
        checks.append(verdict or CheckRecord.unseen_by_harness(f"invariant.{name}", looks.why_none_read()))
    return checks
