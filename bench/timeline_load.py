"""The reviewer's timeline under load: attempts with thousands of events, opened in Chromium from file://.

Prints figures, asserts nothing. An attempt's events are made the way the
harness keeps them (API calls and record samples as JSON lines beside a
fixture package), so the page is built by the same code as a real one.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from harness.core.records import AttemptRecord, utc_now
from harness.core.verdicts import Verdict
from harness.results.report.build import build_report
from harness.results.report.fixture_events import add_events
from harness.results.report.fixtures import write_attempt
from harness.results.report.search import documents
from harness.results.report.timeline import build_timeline
from harness.results.report.timeline_html import rows_html
from harness.running.browser import launch_options

LOAD_GOALS_S = {2_000: 1.0, 10_000: 3.0}
TOGGLE_GOAL_MS = 100.0
BUILD_GOAL_S = 2.0  # what the timelines of 1,000 attempts may add to a build
READY_JS = """() => new Promise(done => requestAnimationFrame(() => {
    document.body.offsetHeight; done(performance.now()); }))"""
"""Milliseconds from the navigation's start to the first frame after the page loaded, laid out: when a reviewer can
read and use it (the load event alone comes before the browser has styled and laid out the rows)."""
TOGGLE_JS = """() => { const box = document.querySelector("input[name=lane-api]");
    const t0 = performance.now(); box.click(); document.body.offsetHeight; return performance.now() - t0; }"""


def timelines_seconds(results: Path, repetitions: int = 3) -> tuple[float, float]:
    """The wall and CPU seconds (medians of ``repetitions``) the timelines add to a build that renders every page:
    each attempt's timeline built from its package, its rows written as HTML and its search documents made (the
    page around them is not). Trace summaries are kept between builds as the report keeps them (a harness upgrade
    renders every page again but leaves its trace cache), so their first reading is not counted."""
    records = [(p.parent, AttemptRecord.model_validate_json(p.read_text())) for p in results.glob("*/*/*/attempt.json")]
    walls, cpus = [], []
    with tempfile.TemporaryDirectory(prefix="timeline-traces-") as traces:  # kept between builds, as the report's
        for folder, record in records:
            build_timeline(folder, record, trace_cache=Path(traces))  # as a report built before this one left it
        for _ in range(repetitions):
            started, cpu = time.perf_counter(), time.process_time()
            for folder, record in records:
                timeline = build_timeline(folder, record, trace_cache=Path(traces))
                rows_html(timeline)
                documents(str(folder), "page.html", timeline)
            walls.append(time.perf_counter() - started)
            cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def _attempt_page(folder: Path, name: str, events: int) -> Path:
    """A fixture attempt's page with ``events`` added events, built by the report."""
    results = folder / f"results-{name}"
    start = utc_now()
    package = write_attempt(results, "load", attempt="1-load", verdict=Verdict.FAILED, started_at=start)
    if events:
        add_events(package, events, start)
    built = build_report([results], folder / f"report-{name}")
    return next((built.out / "attempts").rglob("*.html"))


def measure_load(folder: Path, events: int, repetitions: int = 5) -> str:
    """An attempt with ``events`` added events opened from file:// in Chromium ``repetitions`` times, against the
    same attempt with none (the baseline, opened in turn in the same browser): the medians of the time until it is
    laid out and of a lane toggle, and their ratio to the baseline's."""
    pages = {"events": _attempt_page(folder, str(events), events), "baseline": _attempt_page(folder, "baseline", 0)}
    ready: dict[str, list[float]] = {name: [] for name in pages}
    toggles: dict[str, list[float]] = {name: [] for name in pages}
    rows = 0
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(**launch_options(playwright.chromium))
        for _ in range(repetitions):
            for name, page_file in pages.items():
                page = browser.new_page()
                page.goto(page_file.as_uri(), wait_until="load")
                ready[name].append(page.evaluate(READY_JS) / 1000)
                toggles[name].append(page.evaluate(TOGGLE_JS))
                if name == "events":
                    rows = page.locator("li.ev").count()
                page.close()
        browser.close()
    loaded, base = statistics.median(ready["events"]), statistics.median(ready["baseline"])
    toggle, base_toggle = statistics.median(toggles["events"]), statistics.median(toggles["baseline"])
    goal = LOAD_GOALS_S.get(events)
    verdict = f" goal < {goal:.0f} s: {'met' if loaded < goal else 'MISSED'};" if goal else ""
    return (
        f"attempt with {rows} timeline events, median of {repetitions} loads in Chromium: laid out in {loaded:.2f} s"
        f" ({loaded / base:.1f}x the same attempt without them, {base:.2f} s);{verdict}"
        f" a lane toggle {toggle:.1f} ms ({base_toggle:.1f} ms without; goal < {TOGGLE_GOAL_MS:.0f} ms:"
        f" {'met' if toggle < TOGGLE_GOAL_MS else 'MISSED'}); page {pages['events'].stat().st_size // 1024} KiB,"
        f" {pages['events'].stat().st_size / max(rows, 1):.0f} bytes per event"
    )
