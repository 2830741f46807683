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

from html import escape

from markupsafe import Markup

from harness.results.report.timeline import Row, Timeline

MIN_BAR_PCT = 0.4  # an instant still shows as a tick
BLOCK_ROWS = 100
"""Rows per block: few enough that the blocks in view are cheap to lay out, many enough that a 10,000-event page
has only a hundred blocks to place."""
ROW = (
    '<li id="ev-%s" %s data-at="%d" style="--l:%.2f%%;--w:%s%%"><a href="#ev-%s">%s</a>'
    "<span>%s%03d</span><span>+%.3f s</span>%s<span>%.3f s</span>%s"
)
"""One row with a duration, filled by one ``%`` (a single C call: a row is written hundreds of thousands of times a
build). Its columns (number, time, offset, lane, event, duration, clock) are told apart by their place, not by a
class each: the stylesheet sizes them by position, and the page is a tenth of a megabyte lighter per thousand
events. The bar's offset and width sit on the row (custom properties inherit). What is the same text for every row
of one event (its class and lane attributes, its lane and event columns) or one clock (the clock column, the row's
end) is made once per page (see ``_Events``, ``_Clocks``); only what differs per row is formatted in place."""
UNTIMED_ROW = ROW.replace("<span>%.3f s</span>", "<span>%.0s</span>")
"""A row without a duration: the same fields, its duration printed as nothing (``%.0s``)."""
MIN_BAR = f"{MIN_BAR_PCT:.2f}"  # the width of most bars (an API call lasts milliseconds), formatted once
ROW_PX = 24  # a row's usual height, which a block not yet laid out is assumed to have per row


class _Escaped(dict[str, str]):
    """Each distinct text escaped once: titles, details and clocks repeat (a wait polls one path again and again)."""

    def __missing__(self, text: str) -> str:
        self[text] = done = escape(text)
        return done


class _Clock(dict[int, str]):
    """``HH:MM:SS.`` (UTC) of a whole second since the epoch, made once per second the attempt spans."""

    def __missing__(self, second: int) -> str:
        minutes, seconds = divmod(second % 86_400, 60)
        self[second] = text = f"{minutes // 60:02d}:{minutes % 60:02d}:{seconds:02d}."
        return text


class _Events(dict[tuple[str, str, str, bool], tuple[str, str]]):
    """A row's class and lane attributes, and its lane and event columns when it has no screenshot, made once per
    distinct event: a wait polling one path logs the same call again and again."""

    def __init__(self, escaped: _Escaped) -> None:
        super().__init__()
        self.esc = escaped

    def __missing__(self, key: tuple[str, str, str, bool]) -> tuple[str, str]:
        lane, title, detail, problem = key
        attributes = f'class="ev ev-{lane}{" problem" if problem else ""}" data-lane="{lane}"'
        self[key] = made = (attributes, _event_columns(self.esc, lane, title, detail, problem, ""))
        return made


class _Clocks(dict[str, str]):
    """A row's clock column and the row's end, made once per clock."""

    def __missing__(self, clock: str) -> str:
        self[clock] = made = f"<span>{escape(clock)}</span></li>\n"
        return made


def _event_columns(esc: _Escaped, lane: str, title: str, detail: str, problem: bool, image: str) -> str:
    mark = '<strong class="problem-mark">problem:</strong> ' if problem else ""
    what = f' <span class="detail">{esc[detail]}</span>' if detail else ""
    return f"<span>{lane}</span><span>{mark}{esc[title]}{what}{image}</span>"


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
    scale = 100 / timeline.span_s
    start_ms = round(timeline.started_at.timestamp() * 1000)
    esc = _Escaped()
    clock, events, clocks = _Clock(), _Events(esc), _Clocks()
    parts: list[str] = []
    append = parts.append
    rows = timeline.rows
    for block in range(0, len(rows), BLOCK_ROWS):
        chunk = rows[block : block + BLOCK_ROWS]
        append(
            f'<ol class="tl-block" start="{block + 1}" style="contain-intrinsic-size:auto {len(chunk) * ROW_PX}px">\n'
        )
        for row in chunk:
            n, event, offset, _, full = row
            lane, _, clock_name, title, seconds, detail, problem, _, _ = event
            number = str(n)
            at = start_ms + round(offset * 1000)
            if full:
                attributes = events[lane._value_, title, detail, problem][0]
                what = _event_columns(esc, lane._value_, title, detail, problem, _image(row))
            else:
                attributes, what = events[lane._value_, title, detail, problem]
            left = scale * offset
            width = scale * seconds if seconds else 0.0
            append(
                (UNTIMED_ROW if seconds is None else ROW)
                % (
                    number,
                    attributes,
                    at,
                    0.0 if left < 0 else 100.0 if left > 100 else left,
                    MIN_BAR if width < MIN_BAR_PCT else "100.00" if width > 100 else f"{width:.2f}",
                    number,
                    number,
                    clock[at // 1000],
                    at % 1000,
                    offset,
                    what,
                    seconds,
                    clocks[clock_name],
                )
            )
        append("</ol>\n")
    return Markup("".join(parts))  # noqa: S704 (every value above is escaped)
