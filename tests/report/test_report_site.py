"""The evidence browser, opened from file:// in real headless Chromium (no skip when it is missing)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
from playwright.sync_api import Page

from harness.cli import main
from harness.core.verdicts import Verdict
from harness.results.packages import load_attempts
from harness.results.report.build import build_report, write_package_index
from harness.results.report.fixtures import LIVE_CELL, SCRIPTED_CELL, unknown_schema_json, write_attempt, write_broken

STOP = "everyday-workflows-scripted.scripted.local.stop-redirect"
RECOVER = "everyday-workflows-scripted.scripted.local.recover-controller"
RETIRED = "everyday-workflows-scripted.scripted.local.recover-runner"


def populate(results: Path) -> None:
    """Every verdict class, both evidence modes, broken packages and a diagnostics attempt."""
    write_attempt(results, "c1", SCRIPTED_CELL, "1-aaaa")
    write_attempt(results, "c2", SCRIPTED_CELL, "1-bbbb", Verdict.FAILED, reason="failed checks: oracle.revision")
    write_attempt(results, "c1", RECOVER, "1-cccc", Verdict.INFRASTRUCTURE_FAILED, reason="the product did not start")
    write_attempt(
        results, "c1", RECOVER, "2-cccc", Verdict.UNEXERCISED, reason="run ended before the restart", retry_of="1-cccc"
    )
    write_attempt(
        results, "c1", LIVE_CELL, "1-dddd", Verdict.SKIPPED, reason="no OPENAI_API_KEY", screenshots=0, phases=()
    )
    write_attempt(results, "c1", LIVE_CELL, "2-dddd", Verdict.PASSED, cost_cents=42, agent_reported_cost_usd=0.4375)
    write_attempt(results, "c0", RETIRED, "1-eeee", Verdict.FAILED)
    write_broken(results, "c1", STOP, "1-ffff", None)
    write_broken(results, "c1", STOP, "2-ffff", unknown_schema_json())
    write_broken(results, "c1", STOP, "3-ffff", "{not json")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("site")
    populate(root / "results")
    built = build_report([root / "results"], root / "report")
    assert built.attempts == 10 and built.broken == 3
    return root / "results", root / "report"


def watch(page: Page) -> tuple[list[str], list[str]]:
    errors: list[str] = []
    remote: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("request", lambda request: remote.append(request.url) if not request.url.startswith("file://") else None)
    return errors, remote


def test_index_lists_every_attempt_with_separate_mode_counts(page: Page, site: tuple[Path, Path]) -> None:
    results, report = site
    errors, remote = watch(page)
    page.goto((report / "index.html").as_uri())
    page.wait_for_load_state("load")
    listed = page.eval_on_selector_all("a.attempt-link", "links => links.map(a => a.dataset.attempt)")
    assert sorted(listed) == sorted(a.key for a in load_attempts([results]))
    # Failed, infrastructure_failed, unexercised and broken are chips just like passed ones.
    for verdict in ("passed", "failed", "infrastructure_failed", "unexercised", "skipped", "broken"):
        assert page.locator(f"a.attempt-link[data-verdict='{verdict}']").count() >= 1, verdict
    assert page.locator("[data-count='live/all/passed']").inner_text() == "1"
    assert page.locator("[data-count='scripted/all/passed']").inner_text() == "1"
    assert page.locator("[data-count='scripted/all/broken']").inner_text() == "3"
    assert page.locator("#diagnostics a.attempt-link").count() == 1  # the retired case, out of the matrix
    assert page.locator("#matrix a.attempt-link[data-attempt^='c0/']").count() == 0
    assert errors == [] and remote == []


def test_filters_narrow_rows_and_recount(page: Page, site: tuple[Path, Path]) -> None:
    _, report = site
    errors, _ = watch(page)
    page.goto((report / "index.html").as_uri())
    page.select_option("select[name=mode]", "live")
    assert page.locator("#matrix tr.cell-row:not(.hidden)").count() == 1
    assert page.locator("[data-count='scripted/all/passed']").inner_text() == "0"
    page.select_option("select[name=mode]", "")
    page.select_option("select[name=verdict]", "unexercised")
    visible = page.locator("#matrix tr.cell-row:not(.hidden)")
    assert visible.count() == 1 and RECOVER in visible.inner_text()
    assert visible.locator(".chip.dim").count() == 1  # the infrastructure failure is dimmed, not hidden
    page.select_option("select[name=verdict]", "infrastructure_failed")
    assert page.locator("#matrix tr.cell-row:not(.hidden)").count() == 0, "a filter matches the latest attempt only"
    page.select_option("select[name=verdict]", "")
    page.select_option("select[name=check]", "oracle.revision")
    visible = page.locator("#matrix tr.cell-row:not(.hidden)")
    assert visible.count() == 1 and SCRIPTED_CELL in visible.inner_text()
    page.select_option("select[name=check]", "")
    page.select_option("select[name=product]", "testbed")
    visible = page.locator("#matrix tr.cell-row:not(.hidden)")
    assert visible.count() == 3 and not any(STOP in text for text in visible.all_inner_texts()), (
        "the broken packages' product is unknown"
    )
    assert errors == []


def test_attempt_page_shows_loaded_thumbnails_and_working_evidence_links(page: Page, site: tuple[Path, Path]) -> None:
    results, report = site
    errors, remote = watch(page)
    page.goto((report / "index.html").as_uri())
    page.click(f"a.attempt-link[data-attempt='c2/{SCRIPTED_CELL}/1-bbbb']")
    page.wait_for_load_state("load")
    assert "oracle.revision: graded" in page.get_by_test_id("why").inner_text()
    story = page.get_by_test_id("story").inner_text()
    assert story.startswith("The story downloaded 2 deliveries (build and revision).") and "It ended failed" in story
    page.wait_for_function("[...document.images].every(image => image.complete)")
    shots = page.eval_on_selector_all("img.journey-shot", "imgs => imgs.map(i => [i.alt, i.naturalWidth])")
    assert shots == [["step 1", 1280], ["step 2", 1280]]  # captioned, in journey order, readable
    assert page.locator("table.zip-listing").count() == 2
    assert "tool/slug.py" in page.locator("table.zip-listing").first.inner_text()
    assert "playwright show-trace" in page.inner_text("body")
    assert page.locator("tr.check").count() == 3
    assert "Please add a separator option." in page.inner_text("body")
    for link in page.eval_on_selector_all("a[href]", "links => links.map(a => a.href)"):
        assert link.startswith("file://"), link
        assert Path(unquote(urlparse(link).path)).exists(), link
    assert errors == [] and remote == []


def test_a_package_alone_is_browsable_from_its_own_index(page: Page, tmp_path: Path) -> None:
    """Handed only the folder, a reviewer opens index.html: the story, the journey and every file, nothing outside."""
    folder = write_attempt(tmp_path / "results", verdict=Verdict.FAILED, reason="failed checks: oracle.build")
    index = write_package_index(folder)
    moved = tmp_path / "handed-over"
    folder.rename(moved)  # nothing of the results folder or a report beside it
    errors, remote = watch(page)
    page.goto((moved / index.name).as_uri())
    assert "It ended failed" in page.get_by_test_id("story").inner_text()
    assert page.get_by_test_id("journey").locator("img.journey-shot").count() == 2
    assert page.evaluate("getComputedStyle(document.body).maxWidth") == "1400px"  # the stylesheet is inline
    for link in page.eval_on_selector_all("a[href]", "links => links.map(a => a.href)"):
        target = Path(unquote(urlparse(link).path))
        assert target.exists() and target.is_relative_to(moved), link
    assert errors == [] and remote == []


def test_attempt_page_shows_the_agents_own_cost_beside_the_metered_one(page: Page, site: tuple[Path, Path]) -> None:
    _, report = site
    page.goto((report / "attempts" / "c1" / LIVE_CELL / "2-dddd.html").as_uri())
    assert "42¢" in page.locator("dl.kv", has=page.get_by_test_id("agent-reported-cost")).inner_text()
    assert page.get_by_test_id("agent-reported-cost").inner_text().startswith("$0.4375")
    page.goto((report / "attempts" / "c1" / SCRIPTED_CELL / "1-aaaa.html").as_uri())
    assert page.get_by_test_id("agent-reported-cost").count() == 0


def test_broken_packages_get_pages_that_say_why(page: Page, site: tuple[Path, Path]) -> None:
    _, report = site
    errors, _ = watch(page)
    for attempt, message in (
        ("1-ffff", "attempt.json is missing"),
        ("2-ffff", "schema_version 99"),
        ("3-ffff", "unreadable"),
    ):
        page.goto((report / "attempts" / "c1" / STOP / f"{attempt}.html").as_uri())
        assert message in page.inner_text(".bad")
    assert errors == []


def test_self_contained_copy_works_without_the_results_folder(page: Page, tmp_path: Path) -> None:
    populate(tmp_path / "results")
    assert (
        main(["report", "--results", str(tmp_path / "results"), "--out", str(tmp_path / "site"), "--copy-evidence"])
        == 0
    )
    (tmp_path / "site").rename(tmp_path / "moved")
    errors, remote = watch(page)
    page.goto((tmp_path / "moved" / "attempts" / "c1" / SCRIPTED_CELL / "1-aaaa.html").as_uri())
    for link in page.eval_on_selector_all("a[href]", "links => links.map(a => a.href)"):
        assert Path(unquote(urlparse(link).path)).is_relative_to(tmp_path / "moved"), link
        assert Path(unquote(urlparse(link).path)).exists(), link
    page.wait_for_function("[...document.images].every(image => image.complete)")
    widths = page.eval_on_selector_all("img.journey-shot", "imgs => imgs.map(i => i.naturalWidth)")
    assert widths == [1280, 1280]
    assert errors == [] and remote == []


@pytest.mark.parametrize("width", [600, 1280])
def test_attempt_page_layout_holds_at_any_width(page: Page, site: tuple[Path, Path], width: int) -> None:
    """Long ids, digests and timestamps once pushed the page past the window; wide tables scroll in their column."""
    _, report = site
    page.set_viewport_size({"width": width, "height": 900})
    page.goto((report / "attempts" / "c2" / SCRIPTED_CELL / "1-bbbb.html").as_uri())
    assert page.evaluate("document.documentElement.scrollWidth") <= width
