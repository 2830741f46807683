"""The invariant watch: while a story waits, look at the product and keep every look in the package.

Looking happens inside the journey's waits (at most every ``interval_s``),
so it costs nothing when nobody waits and catches states a product passes
through on the way (a task shown Done while its run still writes). Each look
is appended to ``RECORD_SAMPLES`` as it is taken (a crash keeps what came
before); at the end the invariants are judged by one pure rule over all the
looks (:func:`harness.checks.watch_samples.watched_invariants`), so a regrade
judges them again. While the story runs the watch folds the same looks only
to keep the screen of the moment a rule is first seen broken.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence

import httpx

from harness.checks.facts import lifecycle_facts
from harness.checks.invariants import MIN_SAMPLES
from harness.checks.watch_samples import Looks, SampledRecords, ShownBadge, WatchSample, watched_invariants
from harness.core.observable import Fact
from harness.core.product_records import RecordId, Task
from harness.core.records import utc_now
from harness.evidence.moments import RECORD_SAMPLES, JsonLines
from harness.evidence.recorder import EvidenceRecorder
from harness.judging.observations import judge
from harness.products.api import ProductApi
from harness.products.http import ProductApiError

SAMPLE_INTERVAL_S = 0.5
# What a look may meet while the product restarts under a fault: keep it as unreadable, keep watching.
# Anything else (a record that breaks its contract, a harness bug) ends the story like any other error.
UNREADABLE = (httpx.TransportError, ProductApiError)
FROM_API = "product API: every task's record"
FROM_PAGE = "page: the open task's status badge"


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
        self.observes = None if observes is None else list(observes)
        self.evidence = evidence
        self.screenshot = screenshot
        self.interval_s = interval_s
        self.done_statuses = list(done_statuses)  # the product's word for finished work (its environment's)
        self.samples: list[WatchSample] = []
        self.looks = Looks(self.done_statuses, self.observes)
        self._file = JsonLines(evidence.folder / RECORD_SAMPLES, exclude_none=False)
        self._next_at = 0.0
        self._bytes_checked: set[str] = set()

    def sample(self, shown: Callable[[], tuple[RecordId, str]] | None = None) -> list[Task]:
        """Look at the product now, unless the last look was less than ``interval_s`` ago and enough were taken.

        ``shown`` reads the page the person looks at: (task id, status on its badge). Returns every task's
        record this look read from the product's API (none when it took no look or could not read them), for
        the poll that took it to use instead of reading the same records again at the same moment.
        """
        now = time.monotonic()
        if now < self._next_at and self.looks.enough:
            return []  # until there are enough looks, every wait looks, however soon after the last: a quick story too
        self._next_at = now + self.interval_s
        sample, tasks = self._look(shown)
        new = self.looks.look(sample)
        if new:
            self.screenshot(f"invariant {', '.join(sorted({v.invariant for v in new}))} broken")
            sample.screenshot = self.evidence.screenshots[-1] if self.evidence.screenshots else None
        self.samples.append(sample)
        self._file.add(sample)
        self._bytes_checked |= set(sample.served)
        return tasks

    def _look(self, shown: Callable[[], tuple[RecordId, str]] | None) -> tuple[WatchSample, list[Task]]:
        at = utc_now()
        try:
            badge = ShownBadge(task_id=str(page[0]), status=page[1]) if shown and (page := shown()) else None
            tasks = [self.api.task(summary.id) for summary in self.api.tasks()]
            served = self._served(tasks)
        except UNREADABLE as error:
            return WatchSample(at=at, unreadable=f"{type(error).__name__}: {str(error).strip()[:120]}"), []
        sources = [FROM_API, *([FROM_PAGE] if badge else [])]
        sources += [f"product API: delivery {delivery_id}'s bytes, hashed by the harness" for delivery_id in served]
        return WatchSample(at=at, sources=sources, records=_records(tasks), badge=badge, served=served), tasks

    def _served(self, tasks: list[Task]) -> dict[str, str]:
        """The sha256 of each delivery's bytes as served now, for each delivery not fetched at an earlier look."""
        fresh = [d for task in tasks for d in task.deliveries if str(d.id) not in self._bytes_checked]
        return {str(d.id): hashlib.sha256(self.api.delivery_bytes(d.id)).hexdigest() for d in fresh}

    def conclude(self) -> None:
        """Judge every invariant over all the looks, through the rule a regrade applies again.

        A story whose waits looked once gets its last looks now, at its end;
        with no look read at all, each invariant is not observable, with the reason.
        """
        for _ in range(MIN_SAMPLES):
            if not self.looks.read or self.looks.read >= MIN_SAMPLES:
                break
            self._next_at = 0.0
            self.sample()
        judgement = judge(watched_invariants, self.samples, self.done_statuses, self.observes)
        judgement = judgement.kept_in("samples", RECORD_SAMPLES).reading(RECORD_SAMPLES, origin="product")
        self.evidence.observe(judgement, [RECORD_SAMPLES])


def _records(tasks: list[Task]) -> SampledRecords:
    """The product-neutral facts of the records read at one look (the invariants judge nothing else)."""
    facts = lifecycle_facts(tasks, [], [], None, max_runs=None)
    return SampledRecords(tasks=facts.tasks, runs=facts.runs, messages=facts.messages, deliveries=facts.deliveries)
