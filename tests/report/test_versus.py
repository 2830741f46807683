"""Attempt against attempt, end to end: a passed build-revise and one failed under the product defect
`download-other-bytes`, both played through `harness run`, compared on a page opened from file:// in Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image
from playwright.sync_api import Page

from harness.core.records import AttemptRecord
from harness.core.verdicts import Verdict
from harness.results.compare import compare, record_comparison
from harness.results.report.build import build_report
from harness.results.report.versus_page import build_versus
from tests.needs import PLAYS_CELLS, needs
from tests.report.test_report_site import watch
from tests.stories import shared_plays
from tests.stories.harness_runs import harness_run, ids
from tests.stories.shared_plays import copy_packages

CELL = shared_plays.BUILD_REVISE[0]


def changed_pct(a: Path, b: Path) -> float:
    """The share of changed pixels, counted here pixel by pixel with no help from the code under test: a pixel
    of the larger canvas changed unless both images cover it with the same RGB value (each canvas is padded
    with its own transparent sentinel, so a pixel only one image covers, or neither, never matches)."""
    with Image.open(a) as one, Image.open(b) as other:
        left, right = one.convert("RGBA"), other.convert("RGBA")
    size = (max(left.width, right.width), max(left.height, right.height))
    canvas_a, canvas_b = Image.new("RGBA", size, (0, 0, 0, 0)), Image.new("RGBA", size, (0, 0, 0, 1))
    canvas_a.paste(left, (0, 0))
    canvas_b.paste(right, (0, 0))
    changed = sum(
        1 for p, q in zip(canvas_a.get_flattened_data(), canvas_b.get_flattened_data(), strict=True) if p != q
    )
    return 100 * changed / (size[0] * size[1])


@pytest.fixture(scope="module")
@needs(*PLAYS_CELLS)
def sides(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """The good side is the plain build-revise the session plays once (tests/stories/shared_plays.py), copied in
    with its campaign ("test"); the bad side is played here with the defect on, in the campaign "bad"."""
    results = tmp_path_factory.mktemp("versus") / "results"
    copy_packages(shared_plays.build_revise(tmp_path_factory).results, [CELL], results)
    bad = harness_run(results, *ids([CELL]), "--campaign", "bad", "--product-defect", "download-other-bytes")
    records = [AttemptRecord.model_validate_json(p.read_text()) for p in results.glob("*/*/*/attempt.json")]
    verdicts = {r.campaign: r.verdict for r in records}
    assert verdicts == {"test": Verdict.PASSED, "bad": Verdict.FAILED}, bad.stdout[-1500:]
    folders = [next((results / campaign / CELL).iterdir()) for campaign in ("test", "bad")]
    return results, folders[0], folders[1]


def test_a_defect_shows_as_the_checks_that_differ_and_measured_screenshot_diffs(
    page: Page, sides: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    results, good, bad = sides
    report = tmp_path / "report"
    build_report([results], report)
    versus_page = build_versus(good, bad, report)
    errors, remote = watch(page)
    page.goto(versus_page.as_uri())
    differing = page.get_by_test_id("versus-checks").inner_text()
    assert "delivery.build.sha256" in differing and "invariant.delivery-bytes" in differing
    steps = page.get_by_test_id("versus-steps")
    assert steps.locator("tr.vs-both").count() >= 5 and steps.locator("tr.vs-only-B").count() >= 1
    shots = page.get_by_test_id("versus-shot")
    assert shots.count() >= 3
    for index in range(shots.count()):
        shot = shots.nth(index)
        a_src, b_src = (shot.locator(".vs-side img").nth(i).evaluate("img => img.src") for i in (0, 1))
        expected = changed_pct(Path(a_src.removeprefix("file://")), Path(b_src.removeprefix("file://")))
        assert float(shot.get_attribute("data-pct") or "nan") == pytest.approx(expected, abs=1e-4)
        diff = shot.locator("img.vs-diff")
        diff.scroll_into_view_if_needed()
        assert diff.evaluate("img => img.decode().then(() => img.naturalWidth)") > 0
    slider = shots.first.locator(".vs-slider")
    assert slider.is_visible()
    slider.locator("input").fill("20")
    assert slider.locator(".vs-over").evaluate("over => over.style.width") == "20%"
    assert errors == [] and remote == []


def test_the_compare_page_links_the_changed_cell_to_its_two_attempts(
    page: Page, sides: tuple[Path, Path, Path]
) -> None:
    results, good, bad = sides
    record_comparison(compare(["test", "bad"], results=results), results)
    report = results.parent / "report-compare"
    build_report([results], report)
    page.goto(next((report / "comparisons").glob("*.html")).as_uri())
    page.get_by_role("link", name="A vs B").click()
    sides_shown = page.get_by_test_id("versus-sides").inner_text()
    assert f"test/{CELL}/{good.name}" in sides_shown and f"bad/{CELL}/{bad.name}" in sides_shown
