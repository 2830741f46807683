"""One attempt's timeline: every lane's events on one clock line, laid out for a page that reads without JavaScript.

Built from the package alone (see :mod:`timeline_lanes`), so a regraded or
judged package shows its newest checks. Each row carries its time, its
offset from the attempt's start, a duration bar and the clock it was read
on: the harness, the runner and the browser keep their own, and a reviewer
comparing 12.4 s with 12.9 s must know whether both came from one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import compress, repeat
from operator import add, floordiv, itemgetter, mul, sub
from pathlib import Path
from typing import NamedTuple

from harness.core.records import AttemptRecord
from harness.results.assessed import current_checks
from harness.results.report import timeline_lanes as lanes
from harness.results.report.timeline_lanes import LANE_TITLES, Event, Lane
from harness.results.report.trace_summary import TraceSummary, cached_summary


class Row(NamedTuple):
    """One event in its place on the page: its number, counted from 1, and its offset from the attempt's start in
    whole milliseconds (what every column shows, and an integer is cheaper to write than a float)."""

    n: int
    event: Event
    offset_ms: int
    thumb: str | None = None
    full: str | None = None

    @property
    def offset_s(self) -> float:
        return self.offset_ms / 1000


_AT, _SECONDS, _PROBLEM, _IMAGE = itemgetter(1), itemgetter(4), itemgetter(6), itemgetter(7)  # ``Event``'s, in C
_US = timedelta(microseconds=1)


@dataclass(frozen=True, slots=True)
class LaneInfo:
    lane: Lane
    title: str
    events: int
    problems: int


@dataclass(frozen=True)
class Timeline:
    """What the page shows; built and rendered in one report build, so plain data rather than a model.

    The events in time order and their offsets as two lists, not a :class:`Row` each: the page's writers read
    them as they are, and a report would otherwise make (and collect) hundreds of thousands of rows it only
    unpacks again. ``rows`` makes them for a reader that wants them whole.
    """

    started_at: datetime
    span_s: float
    events: list[Event]  # in time order: row n is ``events[n - 1]``
    offsets_ms: list[int]  # each event's offset from the start, floored to its millisecond (as a clock shows one)
    pictures: dict[int, tuple[str | None, str]]  # by row number, a screenshot's (thumbnail link or None, link)
    lanes: list[LaneInfo]
    record_samples: int
    trace: TraceSummary | None
    checks_source: str
    why: list[Row] = field(default_factory=list)  # the failing checks' rows: where "why it failed" links

    @property
    def problems(self) -> int:
        return sum(lane.problems for lane in self.lanes)

    @property
    def rows(self) -> list[Row]:
        pictures = self.pictures
        return [
            Row(n, event, offset, *pictures.get(n, (None, None)))
            for n, (event, offset) in enumerate(zip(self.events, self.offsets_ms, strict=True), 1)
        ]

    def lane_counts(self) -> list[dict[str, object]]:
        """What the page's script sums the shown count from: per lane, its events and its problems."""
        return [{"lane": lane.lane.value, "events": lane.events, "problems": lane.problems} for lane in self.lanes]


def events_of(
    folder: Path, record: AttemptRecord, trace_cache: Path | None = None
) -> tuple[list[Event], int, TraceSummary | None, str]:
    """Every lane's events of the package, the number of record samples, the trace summary and the checks' file."""
    trace_zip = folder / "trace.zip"
    summary = cached_summary(trace_zip, trace_cache) if trace_zip.is_file() else None
    current = current_checks(folder, record)
    samples, sample_count = lanes.record_samples(folder)
    events = (
        lanes.steps_and_faults(record)
        + lanes.checks(record, current)
        + lanes.api_calls(folder)
        + samples
        + lanes.model_calls(folder)
        + lanes.trace(summary)
    )
    return events, sample_count, summary, current.source


def build_timeline(
    folder: Path,
    record: AttemptRecord,
    images: Callable[[str], tuple[str, str | None]] = lambda name: (name, None),
    trace_cache: Path | None = None,
) -> Timeline:
    """The attempt's timeline, ordered by time (stable: a lane's own order holds for equal times).

    ``images`` turns a package-relative screenshot into (link to it, link to its thumbnail or None);
    ``trace_cache`` is where trace summaries are kept between builds (None: read the trace every time).
    """
    events, sample_count, summary, source = events_of(folder, record, trace_cache)
    start = record.timing.started_at
    # Each event's offset from the start in microseconds (exact: a datetime holds nothing finer), found once, in C,
    # and sorted on as integers: two instants whose zones are different objects are compared by asking both for
    # their offsets from UTC, and a sort compares each event several times.
    micros = list(map(floordiv, map(sub, map(_AT, events), repeat(start)), repeat(_US)))
    order = sorted(range(len(events)), key=micros.__getitem__)  # stable: a lane's own order holds for equal times
    events = list(map(events.__getitem__, order))
    offsets = list(map(floordiv, map(micros.__getitem__, order), repeat(1000)))  # floored to the millisecond
    last = max([record.timing.ended_at or start, *(e.at for e in events[-1:])])
    pictures: dict[int, tuple[str | None, str]] = {}
    for index in compress(range(len(events)), map(_IMAGE, events)):
        full, thumb = images(events[index].image or "")
        pictures[index + 1] = (thumb, full)
    seconds = list(map(_SECONDS, events))
    ends = map(add, compress(offsets, seconds), map(mul, filter(None, seconds), repeat(1000)))
    span = max((last - start).total_seconds(), max(ends, default=0.0) / 1000, 0.001)
    # Events and problems per lane, counted in C: ``list.count`` finds each member by identity first, where a
    # dictionary keyed by lane would hash an enum member in Python.
    every = list(map(itemgetter(0), events))
    problems = list(compress(every, map(_PROBLEM, events)))
    infos = [
        LaneInfo(lane=lane, title=LANE_TITLES[lane], events=every.count(lane), problems=problems.count(lane))
        for lane in Lane
    ]
    failed = [n for n in compress(range(1, len(events) + 1), map(_PROBLEM, events)) if events[n - 1].lane is Lane.CHECK]
    return Timeline(
        started_at=start,
        span_s=span,
        events=events,
        offsets_ms=offsets,
        pictures=pictures,
        lanes=infos,
        record_samples=sample_count,
        trace=summary,
        checks_source=source,
        why=[Row(n, events[n - 1], offsets[n - 1], *pictures.get(n, (None, None))) for n in failed],
    )
