"""What a campaign's search finds: the events a reviewer asks about, each linking to its row on a timeline.

Steps, faults, checks (every id, so a search for a check finds each attempt
that ran it; the detail of failed ones only), model calls (one entry per model and attempt), product records
and the trace's problems; API calls and the trace's plain actions stay on the
timelines. The page holds them as inline JSON and the vendored MiniSearch
indexes them on the first query, so a page on file:// needs no fetch.
"""

from __future__ import annotations

from itertools import compress, count
from operator import itemgetter

from typing_extensions import TypedDict

from harness.results.report.timeline import Timeline
from harness.results.report.timeline_lanes import Lane


class SearchDocument(TypedDict):
    """One searchable event. A typed dict (validated by pydantic where it is kept, :mod:`page_cache`) rather than a
    model: a report makes one per step, check and record change of every attempt."""

    title: str
    detail: str
    attempt: str
    lane: str
    problem: bool
    href: str


_MODEL, _CHECK = Lane.MODEL, Lane.CHECK
_SEARCHED = {
    (lane, problem): problem or lane not in (Lane.API, Lane.TRACE) for lane in Lane for problem in (False, True)
}
"""Whether an event of a lane, a problem or not, can be searched: API calls and the trace's actions only when they
are problems."""
_LANE_AND_PROBLEM = itemgetter(0, 6)  # ``Event``'s


def documents(attempt: str, page: str, timeline: Timeline) -> list[SearchDocument]:
    """The attempt's searchable events; ``page`` links to its attempt page (the search page numbers them all)."""
    found: list[SearchDocument] = []
    models: set[str] = set()
    events = timeline.events
    # The rows that can be searched picked in C: most are API calls that cannot, and a Python loop over every row
    # cost more than the documents it made.
    for n in compress(count(1), map(_SEARCHED.__getitem__, map(_LANE_AND_PROBLEM, events))):
        lane, _, _, title, _, detail, problem, _, _ = events[n - 1]
        if lane is _MODEL:
            model = title.split(" → ")[0]
            if model in models and not problem:
                continue
            models.add(model)
        found.append(
            {
                "title": title,
                "detail": detail[:300] if problem or lane is not _CHECK else "",
                "attempt": attempt,
                "lane": lane._value_,
                "problem": problem,
                "href": f"{page}#ev-{n}",
            }
        )
    return found
