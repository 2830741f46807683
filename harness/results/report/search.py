"""What a campaign's search finds: the events a reviewer asks about, each linking to its row on a timeline.

Steps, faults, checks (every id, so a search for a check finds each attempt
that ran it; the detail of failed ones only), model calls (one entry per model and attempt), product records
and the trace's problems; API calls and the trace's plain actions stay on the
timelines. The page holds them as inline JSON and the vendored MiniSearch
indexes them on the first query, so a page on file:// needs no fetch.
"""

from __future__ import annotations

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


_API, _TRACE, _MODEL, _CHECK = Lane.API, Lane.TRACE, Lane.MODEL, Lane.CHECK


def documents(attempt: str, page: str, timeline: Timeline) -> list[SearchDocument]:
    """The attempt's searchable events; ``page`` links to its attempt page (the search page numbers them all)."""
    found: list[SearchDocument] = []
    models: set[str] = set()
    for n, (lane, _, _, title, _, detail, problem, _, _) in enumerate(timeline.events, 1):
        # Lanes compared by identity: most rows are API calls, and an enum member's hash (for ``in``) runs in Python.
        if lane is _API or lane is _TRACE:
            if not problem:
                continue
        elif lane is _MODEL:
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
