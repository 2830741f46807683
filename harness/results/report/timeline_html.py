"""The timeline's rows as HTML, written here rather than in the template.

A page of a thousand-attempt report holds hundreds of rows and one of a long
attempt ten thousand; Jinja resolves every ``row.event.x`` through its own
attribute lookup, which for that many rows outweighs the rest of the build.
Plain string formatting with every value escaped writes the same markup
cheaply. The template keeps everything around the rows.

What a browser pays for a row is its elements, so a row has as few as its
columns need: the duration bar is drawn by the stylesheet from two custom
properties the row carries, not by elements of its own. Rows
come in blocks (one ``<ol>`` each) that the stylesheet lets the browser skip
while they are off screen: a page of 10,000 events styles and lays out the
blocks in view, not every row, on load and on every filter toggle, and with
JavaScript off every row is still in the page.

The rows are ASCII: a character beyond it (the arrow of every API call's
title) is written as a character reference. One such character makes Python
hold a whole string at two or four bytes a character and widen every row it
formats; the browser shows the same text.
"""

from __future__ import annotations

from functools import lru_cache
from html import escape

from markupsafe import Markup

from harness.results.report.timeline import Timeline
from harness.results.report.timeline_lanes import Event, Lane

BLOCK_ROWS = 100
"""Rows per block: few enough that the blocks in view are cheap to lay out, many enough that a 10,000-event page
has only a hundred blocks to place."""
ROW = (
    '<li id="ev-%s" %s style="--o:%d;--d:%s"><a href="#ev-%s">%s</a>'
    "<span>%s%03d</span><span>+%d.%03d s</span>%s<span>%s s</span>%s"
)
"""One row with a duration, filled by one ``%`` (a single C call: a row is written hundreds of thousands of times a
build). Its columns (number, time, offset, lane, event, duration, clock) are told apart by their place, not by a
class each: the stylesheet sizes them by position, and the page is a tenth of a megabyte lighter per thousand
events. What is the same text for every row of one event (its class and lane attributes, its lane and event
columns) or one clock (the clock column, the row's end) is made once per page (see ``_event_parts``, ``_Clocks``); only
what differs per row is formatted in place, and as few numbers as the row needs, in whole milliseconds where it
can (an integer is written several times faster than a float). ``--o`` is the offset in milliseconds (the
instant for a script or a test to order by; the same millisecond as the time and offset columns), ``--d`` the
duration column's own text in seconds: the stylesheet turns both into per cent of the block's ``--span``."""
UNTIMED_ROW = ROW.replace("--d:%s", "--d:0%s").replace("<span>%s s</span>", "<span>%s</span>")
"""A row without a duration: the same fields, its duration given as no text, so its bar is a tick."""
EARLY_ROWS = {row: row.replace("+%d.", "-%d.") for row in (ROW, UNTIMED_ROW)}
"""The same rows for an event before the attempt's start (a trace action, a clock behind the harness's): the sign
is written by the format and the offset given as its size, which whole-millisecond formatting needs."""
ROW_PX = 24  # a row's usual height, which a block not yet laid out is assumed to have per row


KEPT = 16_384
"""Distinct texts and events kept between pages (see ``_event_parts``): more than a campaign's attempts share."""


@lru_cache(maxsize=KEPT)
def _html(text: str) -> str:
    """``text`` escaped for HTML, in ASCII (see the module's docstring)."""
    escaped = escape(text)
    return escaped if escaped.isascii() else escaped.encode("ascii", "xmlcharrefreplace").decode("ascii")


class _Clock(dict[int, str]):
    """``HH:MM:SS.`` (UTC) of a whole second counted from ``first``, made once per second the attempt spans: keyed
    by the second since the attempt's first rather than since the epoch, an integer small enough for Python's fast
    arithmetic."""

    def __init__(self, first: int) -> None:
        super().__init__()
        self.first = first

    def __missing__(self, second: int) -> str:
        minutes, seconds = divmod((self.first + second) % 86_400, 60)
        self[second] = text = f"{minutes // 60:02d}:{minutes % 60:02d}:{seconds:02d}."
        return text


@lru_cache(maxsize=KEPT)
def _event_parts(lane: Lane, title: str, detail: str, problem: bool) -> tuple[str, str]:
    """A row's class and lane attributes, and its lane and event columns when it has no screenshot: the same for
    every row of one event, and kept between pages, since the attempts of a campaign log the same calls, record
    changes and checks again and again (writing them was most of what a page's distinct events cost)."""
    name = lane.value
    attributes = f'class="ev ev-{name}{" problem" if problem else ""}" data-lane="{name}"'
    return attributes, _event_columns(name, title, detail, problem, "")


class _Events(dict[tuple[Lane, str, str, bool], tuple[str, str]]):
    """``_event_parts`` of each distinct event of one page, looked up without the kept parts' bookkeeping: a wait
    polling one path logs the same call again and again."""

    def __missing__(self, key: tuple[Lane, str, str, bool]) -> tuple[str, str]:
        self[key] = made = _event_parts(*key)
        return made


class _Clocks(dict[str, str]):
    """A row's clock column and the row's end, made once per clock."""

    def __missing__(self, clock: str) -> str:
        self[clock] = made = f"<span>{_html(clock)}</span></li>\n"
        return made


def _event_columns(lane: str, title: str, detail: str, problem: bool, image: str) -> str:
    mark = '<strong class="problem-mark">problem:</strong> ' if problem else ""
    what = f' <span class="detail">{_html(detail)}</span>' if detail else ""
    return f"<span>{lane}</span><span>{mark}{_html(title)}{what}{image}</span>"


def _image(event: Event, thumb: str | None, full: str) -> str:
    """A screenshot's thumbnail linking to it, or its link alone when it has no thumbnail."""
    if thumb:
        alt = _html(f"screenshot: {event.title.removeprefix('screenshot ')}")
        return (
            f'<a href="{_html(full)}"><img class="tl-thumb" loading="lazy" width="160" height="112"'
            f' src="{_html(thumb)}" alt="{alt}"></a>'
        )
    return f' <a href="{_html(full)}">{_html(event.image or "")}</a>'


def rows_html(timeline: Timeline) -> Markup:
    """Every row of the timeline, in order, as ``<li>`` elements in blocks of ``BLOCK_ROWS``.

    A row's time is its offset added to the attempt's start (one addition of whole milliseconds), so the time, the
    offset and ``--o`` show one millisecond.
    """
    span_ms = max(round(timeline.span_s * 1000), 1)
    first, start_ms = divmod(round(timeline.started_at.timestamp() * 1000), 1000)
    clock, events_html, clocks = _Clock(first), _Events(), _Clocks()
    parts: list[str] = []
    append = parts.append
    events, offsets, pictures = timeline.events, timeline.offsets_ms, timeline.pictures
    for block in range(0, len(events), BLOCK_ROWS):
        end = min(block + BLOCK_ROWS, len(events))
        append(
            f'<ol class="tl-block" start="{block + 1}" style="--span:{span_ms};'
            f'contain-intrinsic-size:auto {(end - block) * ROW_PX}px">\n'
        )
        for n, event, off in zip(range(block + 1, end + 1), events[block:end], offsets[block:end], strict=True):
            lane, _, clock_name, title, seconds, detail, problem, image, _ = event
            number = str(n)
            at = start_ms + off  # milliseconds since the attempt's first whole second
            if image:
                attributes = events_html[lane, title, detail, problem][0]
                what = _event_columns(lane.value, title, detail, problem, _image(event, *pictures[n]))
            else:
                attributes, what = events_html[lane, title, detail, problem]
            if seconds is None:
                template, lasts = UNTIMED_ROW, ""
            else:
                template, lasts = ROW, f"{seconds:.3f}"
            if off < 0:
                template, size = EARLY_ROWS[template], -off
            else:
                size = off
            append(
                template
                % (
                    number,
                    attributes,
                    off,
                    lasts,
                    number,
                    number,
                    clock[at // 1000],
                    at % 1000,
                    size // 1000,
                    size % 1000,
                    what,
                    lasts,
                    clocks[clock_name],
                )
            )
        append("</ol>\n")
    return Markup("".join(parts))  # noqa: S704 (every value above is escaped)
