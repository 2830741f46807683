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
"""

from __future__ import annotations

from datetime import UTC, datetime
from html import escape

from markupsafe import Markup

from harness.results.report.timeline import Row, Timeline

MIN_BAR_PCT = 0.4  # an instant still shows as a tick
BLOCK_ROWS = 100
"""Rows per block: few enough that the blocks in view are cheap to lay out, many enough that a 10,000-event page
has only a hundred blocks to place."""
ROW = (
    '<li id="ev-%d" class="ev ev-%s" data-lane="%s" data-at="%d" style="--l:%.2f%%;--w:%.2f%%"><a href="#ev-%d">%d</a>'
    "<span>%s.%03d</span><span>+%.3f s</span><span>%s</span>%s</li>\n"
)
"""One row, filled by one ``%`` (a single C call: a row is written hundreds of thousands of times a build). Its
columns (number, time, offset, lane, event, duration, clock) are told apart by their place, not by a class each:
the stylesheet sizes them by position, and the page is a tenth of a megabyte lighter per thousand events. The
bar's offset and width sit on the row (custom properties inherit), so the columns after the lane are the same
text for every row with the same event, duration and clock, and are written once per page (see ``_Tails``)."""
TAIL = "<span>%s%s%s</span><span>%s</span><span>%s</span>"
ROW_PX = 24  # a row's usual height, which a block not yet laid out is assumed to have per row


class _Escaped(dict[str, str]):
    """Each distinct text escaped once: titles, details and clocks repeat (a wait polls one path again and again)."""

    def __missing__(self, text: str) -> str:
        self[text] = done = escape(text)
        return done


class _Clock(dict[int, str]):
    """``HH:MM:SS`` of a whole second since the epoch, made once per second the attempt spans."""

    def __missing__(self, second: int) -> str:
        self[second] = text = datetime.fromtimestamp(second, UTC).strftime("%H:%M:%S")
        return text


class _Tails(dict[tuple[str, str, bool, float | None, str], str]):
    """The event, duration and clock columns of a row without a screenshot, made once per distinct event: a wait
    polling one path logs the same call again and again, answered in a handful of distinct milliseconds (the key
    holds the duration as shown, rounded to the millisecond, as ``round`` and the ``.3f`` format round alike)."""

    def __init__(self, escaped: _Escaped) -> None:
        super().__init__()
        self.esc = escaped

    def __missing__(self, key: tuple[str, str, bool, float | None, str]) -> str:
        title, detail, problem, seconds, clock = key
        self[key] = tail = _tail(self.esc, title, detail, problem, seconds, clock, "")
        return tail


def _tail(esc: _Escaped, title: str, detail: str, problem: bool, seconds: float | None, clock: str, image: str) -> str:
    mark = '<strong class="problem-mark">problem:</strong> ' if problem else ""
    what = f' <span class="detail">{esc[detail]}</span>' if detail else ""
    duration = "" if seconds is None else f"{seconds:.3f} s"
    return TAIL % (mark, esc[title], what + image, duration, esc[clock])


def _image(row: Row) -> str:
    """A screenshot's thumbnail linking to it, or its link alone when it has no thumbnail."""
    event = row.event
    if row.thumb:
        alt = escape(f"screenshot: {event.title.removeprefix('screenshot ')}")
        return (
            f'<a href="{escape(row.full or "")}"><img class="tl-thumb" loading="lazy" width="160" height="112"'
            f' src="{escape(row.thumb)}" alt="{alt}"></a>'
        )
    return f' <a href="{escape(row.full or "")}">{escape(event.image or "")}</a>'


def rows_html(timeline: Timeline) -> Markup:
    """Every row of the timeline, in order, as ``<li>`` elements in blocks of ``BLOCK_ROWS``.

    A row's time is its offset added to the attempt's start (one subtraction made when the timeline was built),
    ``data-at`` the same instant in milliseconds since the epoch, UTC, for a script or a test to order by.
    """
    span = timeline.span_s
    start_ms = round(timeline.started_at.timestamp() * 1000)
    esc, clock = _Escaped(), _Clock()
    tails = _Tails(esc)
    parts: list[str] = []
    rows = timeline.rows
    for block in range(0, len(rows), BLOCK_ROWS):
        chunk = rows[block : block + BLOCK_ROWS]
        parts.append(
            f'<ol class="tl-block" start="{block + 1}" style="contain-intrinsic-size:auto {len(chunk) * ROW_PX}px">\n'
        )
        for row in chunk:
            event = row.event
            lane = event.lane._value_
            at = start_ms + round(row.offset_s * 1000)
            second, milli = divmod(at, 1000)
            seconds = event.seconds
            if row.full:
                tail = _tail(esc, event.title, event.detail, event.problem, seconds, event.clock, _image(row))
            else:
                shown = None if seconds is None else round(seconds, 3)
                tail = tails[event.title, event.detail, event.problem, shown, event.clock]
            left = 100 * row.offset_s / span
            width = 100 * (seconds or 0) / span
            parts.append(
                ROW
                % (
                    row.n,
                    lane + " problem" if event.problem else lane,
                    lane,
                    at,
                    0.0 if left < 0 else 100.0 if left > 100 else left,
                    MIN_BAR_PCT if width < MIN_BAR_PCT else 100.0 if width > 100 else width,
                    row.n,
                    row.n,
                    clock[second],
                    milli,
                    row.offset_s,
                    lane,
                    tail,
                )
            )
        parts.append("</ol>\n")
    return Markup("".join(parts))  # noqa: S704 (every value above is escaped)
