"""The timeline's rows as HTML, written here rather than in the template.

A page of a thousand-attempt report holds hundreds of rows and one of a long
attempt ten thousand; Jinja resolves every ``row.event.x`` through its own
attribute lookup, which for that many rows outweighs the rest of the build.
Plain string formatting with every value escaped writes the same markup
cheaply. The template keeps everything around the rows.
"""

from __future__ import annotations

from html import escape

from markupsafe import Markup

from harness.results.report.timeline import Row, Timeline


def _row(row: Row) -> str:
    event = row.event
    lane = event.lane.value
    problem = " problem" if event.problem else ""
    mark = '<strong class="problem-mark">problem:</strong> ' if event.problem else ""
    detail = f' <span class="detail">{escape(event.detail)}</span>' if event.detail else ""
    if row.thumb:
        alt = escape(f"screenshot: {event.title.removeprefix('screenshot ')}")
        image = (
            f'<a href="{escape(row.full or "")}"><img class="tl-thumb" loading="lazy" width="160" height="112"'
            f' src="{escape(row.thumb)}" alt="{alt}"></a>'
        )
    elif row.full:
        image = f' <a href="{escape(row.full)}">{escape(event.image or "")}</a>'
    else:
        image = ""
    seconds = f"{event.seconds:.3f} s" if event.seconds is not None else ""
    return (
        f'<li id="ev-{row.n}" class="ev ev-{lane}{problem}" data-lane="{lane}" data-at="{event.at.isoformat()}">'
        f'<a class="tl-n" href="#ev-{row.n}">{row.n}</a>'
        f'<span class="tl-time">{event.at.strftime("%H:%M:%S.%f")[:-3]}</span>'
        f'<span class="tl-off">+{row.offset_s:.3f} s</span><span class="tl-lane">{lane}</span>'
        f'<span class="tl-what">{mark}{escape(event.title)}{detail}{image}</span>'
        f'<span class="tl-bar"><span class="tl-track" aria-hidden="true"><span class="tl-span"'
        f' style="left:{row.left_pct}%;width:{row.width_pct}%"></span></span>{seconds}</span>'
        f'<span class="tl-clock">{escape(event.clock)}</span></li>\n'
    )


def rows_html(timeline: Timeline) -> Markup:
    """Every row of the timeline, in order, as the ``<li>`` elements of its list."""
    return Markup("".join(_row(row) for row in timeline.rows))  # noqa: S704 (every value above is escaped)
