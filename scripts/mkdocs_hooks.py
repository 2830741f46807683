"""The docs build's hook: the reviewer's guide shows each report view as this revision builds it.

A report is built from fixture packages and photographed in Chromium; the
pictures are taken into a temporary folder and added to the site's files, so
the docs folder is never written to (`mkdocs serve` would rebuild forever).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files
from PIL import Image, ImageDraw
from playwright.sync_api import sync_playwright

from harness.core.records import utc_now
from harness.core.verdicts import Verdict
from harness.results.report.build import build_report
from harness.results.report.fixture_events import add_events, add_model_calls
from harness.results.report.fixtures import SCRIPTED_CELL, write_attempt
from harness.results.report.versus_page import build_versus
from harness.running.browser import launch_options

VIEWS = ("timeline", "versus", "search")


def _packages(results: Path) -> tuple[Path, Path]:
    start = utc_now()
    passed = write_attempt(results, "c1", SCRIPTED_CELL, "1-aaaa", Verdict.PASSED, started_at=start)
    failed = write_attempt(
        results, "c2", SCRIPTED_CELL, "1-bbbb", Verdict.FAILED, reason="failed checks: oracle.build", started_at=start
    )
    for folder in (passed, failed):
        add_events(folder, 60, start, span_s=8)
        add_model_calls(folder, 4, start, span_s=8)
    # The failed attempt's second screen shows an error banner, so the screenshot diff has something to find.
    shot = next((failed / "screenshots").glob("02-*.png"))
    with Image.open(shot) as image:
        banner = image.convert("RGB")
    ImageDraw.Draw(banner).rectangle((40, 120, 700, 170), fill=(192, 38, 45))
    banner.save(shot)
    return passed, failed


def photograph(out: Path, browser: Any = None) -> dict[str, Path]:
    """Build the sample report under ``out`` and write one PNG per view there: {view: image}.

    ``browser``: a Playwright browser to photograph in (a test's, whose Playwright is already running in the
    process: a second sync Playwright cannot start beside it); none, Chromium launched here for the docs build.
    """
    if browser is None:
        with sync_playwright() as playwright:
            launched = playwright.chromium.launch(**launch_options(playwright.chromium))
            try:
                return photograph(out, launched)
            finally:
                launched.close()
    passed, failed = _packages(out / "results")
    report = out / "report"
    build_report([out / "results"], report)
    versus = build_versus(passed, failed, report)
    attempt = next((report / "attempts" / "c2").rglob("*.html"))
    images = {view: out / f"reviewer-{view}.png" for view in VIEWS}
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        page.goto(attempt.as_uri())
        page.get_by_label("problems only").check()
        page.locator("#timeline").screenshot(path=images["timeline"])
        page.goto(versus.as_uri())
        page.screenshot(path=images["versus"], full_page=True)
        page.goto((report / "search.html").as_uri())
        page.get_by_test_id("search-box").fill("oracle.build")
        page.screenshot(path=images["search"])
    finally:
        page.close()
    return images


IMAGES = "images/reviewer"
_taken: Path | None = None


PHOTOGRAPH = "EVERYDAY_DOCS_PHOTOGRAPH"
"""Set by ``make docs``: the site a reader gets shows real pictures. The strict build of ``make lint`` (and so
``make check``, which starts no browser) links a blank stand-in for each instead."""


def _stand_ins(out: Path) -> dict[str, Path]:
    images = {view: out / f"reviewer-{view}.png" for view in VIEWS}
    for image in images.values():
        Image.new("RGB", (8, 8), "white").save(image)
    return images


def on_files(files: Files, config: Any) -> Files:
    global _taken
    _taken = _taken or Path(tempfile.mkdtemp(prefix="everyday-docs-views-"))
    taken = photograph(_taken) if os.environ.get(PHOTOGRAPH) == "1" else _stand_ins(_taken)
    for view, image in taken.items():
        target = _taken / IMAGES / f"{view}.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        image.replace(target)
        files.append(File(f"{IMAGES}/{view}.png", str(_taken), config["site_dir"], config["use_directory_urls"]))
    return files


def on_shutdown() -> None:
    """The pictures were copied into the site; their temporary folder goes with the build (or the last serve)."""
    if _taken is not None:
        shutil.rmtree(_taken, ignore_errors=True)
