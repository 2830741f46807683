"""The reviewer's timeline, end to end: real cells played through `harness run`, the report opened from file://
in real headless Chromium (a missing browser fails the test), with and without JavaScript."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from harness.core.records import AttemptRecord
from harness.core.verdicts import Verdict
from harness.evidence.moments import API_CALLS, RECORD_SAMPLES
from harness.results.report.build import build_report
from harness.results.report.fixtures import SCRIPTED_CELL, write_attempt
from tests.needs import PLAYS_CELLS, needs
from tests.report.test_report_site import watch
from tests.stories import shared_plays
from tests.stories.harness_runs import attempts
from tests.stories.shared_plays import copy_packages

SCRIPTED = "everyday-workflows-scripted.scripted.local.recover-controller"
REPLAY = "everyday-workflows-replay.replay-codex.local.recover-controller"
EVERY_LANE = {"step", "api", "record", "fault", "check", "trace"}
PLANTED = "planted: the widget could not load its data"


@pytest.fixture(scope="module")
@needs(*PLAYS_CELLS, "agent_cli")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One scripted recover-controller attempt and one replay attempt (its agent's model calls), and their pages.

    Both cells are played once in the session by the plays of the fault stories and of Codex's replay cells
    (tests/stories/shared_plays.py), whose other cells these tests do not read and need not pass; a results folder
    of the two packages alone makes the report."""
    root = tmp_path_factory.mktemp("timeline")
    results = root / "results"
    copy_packages(shared_plays.fault_stories(tmp_path_factory).results, [SCRIPTED], results)
    copy_packages(shared_plays.replay(tmp_path_factory, "codex").results, [REPLAY], results)
    records = {record.cell.execution_id: record for record in attempts(results)}
    assert sorted(records) == sorted([SCRIPTED, REPLAY])
    assert all(r.verdict is Verdict.PASSED for r in records.values()), {c: r.reason for c, r in records.items()}
    build_report([results], root / "report")
    pages = {cell: next((root / "report" / "attempts" / "test" / cell).glob("*.html")) for cell in records}
    packages = {cell: next((results / "test" / cell).iterdir()) for cell in records}
    return {
        "results": results,
        "report": root / "report",
        **{f"page {c}": p for c, p in pages.items()},
        **{f"package {c}": p for c, p in packages.items()},
    }


def lanes_on(page: Page) -> list[str]:
    return page.eval_on_selector_all("li.ev", "rows => rows.map(row => row.dataset.lane)")


def visible_rows(page: Page) -> int:
    return page.eval_on_selector_all("li.ev", "rows => rows.filter(row => row.offsetParent !== null).length")


def shown(page: Page) -> int:
    return int(page.get_by_test_id("timeline-shown").inner_text())


def test_the_package_keeps_every_record_sample_and_api_call_with_its_time(played: dict[str, Path]) -> None:
    package = played[f"package {SCRIPTED}"]
    samples = [json.loads(line) for line in (package / RECORD_SAMPLES).read_text().splitlines()]
    calls = [json.loads(line) for line in (package / API_CALLS).read_text().splitlines()]
    read = [s for s in samples if s["records"] is not None]
    assert len(read) >= 2 and all(s["at"] and s["sources"] for s in read)
    assert all(s["at"] and s["unreadable"] for s in samples if s["records"] is None)  # the controller restarting
    assert any(s["records"]["tasks"] for s in read)
    assert [s["at"] for s in samples] == sorted(s["at"] for s in samples)
    # A read is answered 200, or (the controller restarting under it) gets no answer, logged with its error.
    answered = [c for c in calls if "status" in c]
    assert answered and all(c["status"] in (200, 201) for c in answered if c["method"] == "GET"), calls
    assert all(c["error"] for c in calls if "status" not in c), calls
    record = AttemptRecord.model_validate_json((package / "attempt.json").read_text())
    faults = [e for e in record.timeline if e.kind == "fault"]
    assert faults and all(e.until and e.until > e.at for e in faults)


def test_every_lane_in_time_order_and_the_filters_change_the_shown_count(page: Page, played: dict[str, Path]) -> None:
    errors, remote = watch(page)
    page.goto(played[f"page {SCRIPTED}"].as_uri())
    lanes = lanes_on(page)
    assert EVERY_LANE <= set(lanes), sorted(set(lanes))
    times = page.eval_on_selector_all("li.ev", "rows => rows.map(row => Number(row.style.getPropertyValue('--o')))")
    assert times == sorted(times) and len(times) == len(lanes)
    total = len(lanes)
    assert shown(page) == total == visible_rows(page)
    page.get_by_label("API calls").uncheck()
    assert shown(page) == total - lanes.count("api") == visible_rows(page)
    page.get_by_label("API calls").check()
    page.get_by_label("problems only").check()
    problems = page.locator("li.ev.problem").count()
    assert shown(page) == problems == visible_rows(page) < total
    page.get_by_label("problems only").uncheck()
    thumb = page.locator("li.ev-step img.tl-thumb").first
    assert (thumb.get_attribute("alt") or "").startswith("screenshot: ")
    thumb.scroll_into_view_if_needed()  # thumbnails load lazily
    thumb.evaluate("image => image.decode()")
    assert thumb.evaluate("image => image.naturalWidth") > 0

    # The keyboard moves between the rows shown; printing keeps the timeline and drops the controls.
    page.get_by_label("API calls").uncheck()
    page.locator("li.ev > a").first.focus()
    for _ in range(3):
        page.keyboard.press("ArrowDown")
    fourth_shown = page.evaluate("[...document.querySelectorAll('li.ev')].filter(row => row.offsetParent)[3].id")
    assert page.evaluate("document.activeElement.closest('li.ev').id") == fourth_shown
    page.emulate_media(media="print")
    assert not page.locator(".tl-controls").is_visible() and visible_rows(page) == total - lanes.count("api")
    page.emulate_media(media="screen")

    page.goto(played[f"page {REPLAY}"].as_uri())
    assert "model" in lanes_on(page)
    model = page.locator("li.ev-model").first.text_content() or ""
    assert "gpt-" in model and " in (" in model and "¢" in model and "runner (metering proxy" in model
    assert errors == [] and remote == []


def test_with_javascript_off_the_timeline_still_lists_every_event(browser: Browser, played: dict[str, Path]) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(played[f"page {SCRIPTED}"].as_uri())
    rows = page.locator("li.ev").count()
    assert rows > 0 and visible_rows(page) == rows
    assert EVERY_LANE <= set(lanes_on(page))
    assert not page.locator(".tl-controls").is_visible()  # the filters need the script, so they stay hidden
    context.close()


def test_a_real_trace_shows_its_actions_and_a_planted_console_error(
    browser: Browser, page: Page, tmp_path: Path
) -> None:
    results = tmp_path / "results"
    package = write_attempt(results, "c1", SCRIPTED_CELL, "1-aaaa", Verdict.FAILED, reason="failed checks")
    recorded = browser.new_context()
    recorded.tracing.start(snapshots=True)
    traced = recorded.new_page()
    form = tmp_path / "form.html"
    form.write_text(f"<button onclick=\"console.error('{PLANTED}')\">Load data</button>")
    traced.goto(form.as_uri())
    traced.get_by_role("button", name="Load data").click()
    recorded.tracing.stop(path=package / "trace.zip")
    recorded.close()
    build_report([results], tmp_path / "report")

    errors, remote = watch(page)
    page.goto(next((tmp_path / "report" / "attempts").rglob("*.html")).as_uri())
    trace_rows = page.locator("li.ev-trace")
    planted = trace_rows.filter(has_text="console error: " + PLANTED)
    assert planted.count() == 1 and "problem" in (planted.get_attribute("class") or "")
    assert trace_rows.filter(has_text="goto").count() == 1 and trace_rows.filter(has_text="click").count() >= 1
    assert page.get_by_test_id("trace-note").count() == 0  # a format this reader knows

    # "Why it failed" links each failing check to its row on the timeline.
    page.get_by_test_id("why").get_by_role("link", name="on the timeline").first.click()
    target = page.locator("li.ev:target")
    assert target.count() == 1 and "problem" in (target.get_attribute("class") or "")
    assert target.get_attribute("data-lane") == "check"
    assert errors == [] and remote == []


def test_searching_the_campaign_for_a_check_id_finds_the_attempt_and_opens_its_event(
    page: Page, played: dict[str, Path]
) -> None:
    errors, remote = watch(page)
    page.goto((played["report"] / "index.html").as_uri())
    page.get_by_test_id("search-link").click()
    page.get_by_test_id("search-box").fill("restart.same-run")
    hits = page.get_by_test_id("search-hits").locator("li")
    exact = hits.filter(has_text="restart.same-run: passed")
    assert exact.count() == 2  # the check ran in both attempts
    scripted = exact.filter(has_text=SCRIPTED)
    assert scripted.count() == 1
    scripted.get_by_role("link").click()
    target = page.locator("li.ev:target")
    expect(target).to_have_count(1)  # the click waits for the attempt page to commit, not to be parsed
    assert target.get_attribute("data-lane") == "check" and "restart.same-run" in (target.text_content() or "")
    page.go_back()
    page.get_by_test_id("search-box").fill("gpt")
    assert hits.count() >= 1 and hits.filter(has_text=REPLAY).count() == hits.count()
    assert errors == [] and remote == []
