"""The reviewer's timeline under load: attempts with thousands of events, opened in Chromium from file://.

Prints figures, asserts nothing. An attempt's events are made the way the
harness keeps them (API calls and record samples as JSON lines beside a
fixture package), so the page is built by the same code as a real one.
"""

from __future__ import annotations

import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from harness.core.records import AttemptRecord, utc_now
from harness.core.verdicts import Verdict
from harness.results.report.build import build_report
from harness.results.report.fixture_events import add_events
from harness.results.report.fixtures import write_attempt
from harness.results.report.timeline import build_timeline
from harness.running.browser import launch_options

LOAD_GOALS_S = {2_000: 1.0, 10_000: 3.0}
TOGGLE_GOAL_MS = 100.0


def timelines_seconds(results: Path) -> tuple[float, float]:
    """The wall and CPU seconds building every attempt's timeline takes (the share of a report build that renders
    every page the timelines add)."""
    records = [(p.parent, AttemptRecord.model_validate_json(p.read_text())) for p in results.glob("*/*/*/attempt.json")]
    started, cpu = time.perf_counter(), time.process_time()
    for folder, record in records:
        build_timeline(folder, record)
    return time.perf_counter() - started, time.process_time() - cpu


def measure_load(folder: Path, events: int) -> str:
    """One attempt with ``events`` added events: its page's load time in Chromium and a lane toggle's time."""
    results = folder / f"results-{events}"
    start = utc_now()
    package = write_attempt(results, "load", attempt="1-load", verdict=Verdict.FAILED, started_at=start)
    add_events(package, events, start)
    built = build_report([results], folder / f"report-{events}")
    page_file = next((built.out / "attempts").rglob("*.html"))
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(**launch_options(playwright.chromium))
        page = browser.new_page()
        started = time.perf_counter()
        page.goto(page_file.as_uri(), wait_until="load")
        loaded = time.perf_counter() - started
        rows = page.locator("li.ev").count()
        toggle_ms = page.evaluate(
            """() => { const box = document.querySelector("input[name=lane-api]");
                       const t0 = performance.now(); box.click(); document.body.offsetHeight;
                       return performance.now() - t0; }"""
        )
        browser.close()
    goal = LOAD_GOALS_S.get(events)
    verdict = f" goal < {goal:.0f} s: {'met' if loaded < goal else 'MISSED'}" if goal else ""
    return (
        f"attempt with {rows} timeline events: page loaded (HTML parsed, laid out, script run) in {loaded:.2f} s;{verdict};"
        f" a lane toggle took {toggle_ms:.1f} ms (goal < {TOGGLE_GOAL_MS:.0f} ms:"
        f" {'met' if toggle_ms < TOGGLE_GOAL_MS else 'MISSED'}); page {page_file.stat().st_size // 1024} KiB"
    )
