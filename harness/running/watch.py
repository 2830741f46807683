"""The invariant watch: while a story runs, look at the product and keep every look in the package.

It looks at each of the journey's waits and, on its own thread, between
them (at most every ``interval_s`` either way): a run that starts and ends
while the person's browser loads a page is watched like one that outlasts a
wait. A look at a wait also reads the page the person has open and is
reused by the wait's own poll; a look between waits reads only the API, and
the screen of a rule it first sees broken is kept at the story's next wait
(the browser belongs to the story's thread). Each look is appended to
``RECORD_SAMPLES`` as it is taken (a crash keeps what came before); at the
end the invariants are judged by one pure rule over all the looks
(:func:`harness.checks.watch_samples.watched_invariants`), so a regrade
judges them again.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

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
QUIET_INTERVALS = 1.5
"""Intervals without a look at a wait before the thread looks: longer than one poll of a wait takes, so the looks
at waits (which also read the page) keep their cadence."""
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
        self._next_at = 0.0  # the story's next look at a wait, on its own cadence: each reads the page too
        self._quiet_until = 0.0  # the next look between waits, once no look was taken for a while
        self._bytes_checked: set[str] = set()
        self._lock = threading.Lock()  # one look at a time, folded in the order taken
        self._unshot: set[str] = set()  # invariants first seen broken between waits, their screen not kept yet
        self._failed: BaseException | None = None  # what ended the looks between waits, for the story to raise
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None

    @contextmanager
    def between_waits(self) -> Iterator[None]:
        """Look between the story's waits too, until the block ends or the watch concludes.

        Not on a product whose state moves only when read (the fake): there a
        look would be the clock, and nothing happens between the story's reads.
        """
        if self.interval_s > 0 and not self.api.moves_only_when_read:
            self._thread = threading.Thread(target=self._look_between_waits, name="invariant-watch", daemon=True)
            self._thread.start()
        try:
            yield
        finally:
            self._stop()

    def sample(self, shown: Callable[[], tuple[RecordId, str]] | None = None) -> list[Task]:
        """Look at the product now, at a wait, unless the last look at a wait was less than ``interval_s`` ago and
        enough were taken.

        ``shown`` reads the page the person looks at: (task id, status on its badge). Returns every task's
        record this look read from the product's API (none when it took no look or could not read them), for
        the poll that took it to use instead of reading the same records again at the same moment.
        """
        with self._lock:
            if self._failed is not None:
                raise self._failed
            # until there are enough looks, every wait looks, however soon after the last: a quick story too
            now = time.monotonic()
            if now < self._next_at and self.looks.enough and not self._unshot:
                return []
            self._next_at = now + self.interval_s
            self._quiet_until = max(self._quiet_until, now + self.interval_s * QUIET_INTERVALS)
            sample, tasks = self._look(shown)
            broken = self._unshot | {v.invariant for v in self.looks.look(sample)}
            self._unshot = set()
            if broken:
                self.screenshot(f"invariant {', '.join(sorted(broken))} broken")
                sample.screenshot = self.evidence.screenshots[-1] if self.evidence.screenshots else None
            self._keep(sample)
            return tasks

    def _look_between_waits(self) -> None:
        """The thread's loop: a look every ``interval_s`` while the story takes none (it is not waiting)."""
        while not self._stopped.wait(max(self._quiet_until - time.monotonic(), 0.01)):
            with self._lock:
                now = time.monotonic()
                if self._stopped.is_set() or now < self._quiet_until:
                    continue
                self._quiet_until = now + self.interval_s
                try:
                    sample, _ = self._look(None)
                except BaseException as error:  # noqa: BLE001 - raised at the story's next wait, on its thread
                    self._failed = error
                    return
                self._unshot |= {v.invariant for v in self.looks.look(sample)}
                self._keep(sample)

    def _keep(self, sample: WatchSample) -> None:
        self.samples.append(sample)
        self._file.add(sample)
        self._bytes_checked |= set(sample.served)

    def _stop(self) -> None:
        self._stopped.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

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
        """Stop looking between waits and judge every invariant over all the looks, through the rule a regrade
        applies again.

        A story whose looks read fewer than ``MIN_SAMPLES`` gets its last looks now, at its end, and a rule first
        seen broken between waits gets its screen; with no look read at all, each invariant is not observable,
        with the reason.
        """
        self._stop()
        for _ in range(MIN_SAMPLES):
            if not self._unshot and (not self.looks.read or self.looks.read >= MIN_SAMPLES):
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
