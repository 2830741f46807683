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


def documents(attempt: str, page: str, timeline: Timeline) -> list[SearchDocument]:
    """The attempt's searchable events; ``page`` links to its attempt page (the search page numbers them all)."""
    found: list[SearchDocument] = []
    models: set[str] = set()
    for row in timeline.rows:
        event = row.event
        if event.lane is Lane.MODEL:
            model = event.title.split(" → ")[0]
            if model in models and not event.problem:
                continue
            models.add(model)
        elif not event.problem and (event.lane is Lane.API or event.lane is Lane.TRACE):
            continue  # by identity: most rows are API calls, and an enum member's hash (for ``in``) runs in Python
        found.append(
            {
                "title": event.title,
                "detail": event.detail[:300] if event.problem or event.lane is not Lane.CHECK else "",
                "attempt": attempt,
                "lane": event.lane.value,
                "problem": event.problem,
                "href": f"{page}#ev-{row.n}",
            }
        )
    return found
