"""A real attempt whose harness infrastructure fails once and is recovered passes as ``passed_with_recovery``, with
the recovery in its package; a story's own fault is never such a recovery.

These play a real testbed cell in-process (real product, real Chromium, real oracle) so the harness's own
infrastructure can be broken on purpose: the shared browser is closed before the attempt. A retry after a first
attempt's world failed to open is the attempt runner's own logic, played on the fake product
(tests/harness/running/test_retry_recovery.py).
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import BrowserType

from harness.cli import main
from harness.core import registry
from harness.core.records import RecoveryKind
from harness.core.settings import RunSettings
from harness.core.verdicts import Verdict
from harness.judging.regrade import newest_assessment
from harness.products import product_driver
from harness.results.packages import load_attempts
from harness.results.summary import summarize, summary_text
from harness.running.attempt import run_epoch
from harness.running.browser import launch_options
from harness.running.journey_factory import journey_factory
from harness.running.shared_browser import SharedBrowser

CELL = next(
    c for c in registry.catalog().cells() if c.execution_id == "everyday-workflows-scripted.scripted.local.build-revise"
)
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def shared(browser_type: BrowserType) -> Iterator[SharedBrowser]:
    """A browser of this test's own (the session's stays untouched), closed at the end whatever it became."""
    browser = browser_type.launch(headless=True, **launch_options(browser_type))
    kept = SharedBrowser(browser)
    yield kept
    kept.close()
    if browser.is_connected():
        browser.close()


def _package(results: Path, attempt: str) -> dict[str, Any]:
    return json.loads((results / "t" / CELL.execution_id / attempt / "attempt.json").read_text())


def test_a_browser_gone_before_the_attempt_is_relaunched_and_the_pass_is_passed_with_recovery(
    shared: SharedBrowser, tmp_path: Path
) -> None:
    gone = shared.browser
    gone.close()  # the harness's own browser dies between attempts, as a crashed Chromium would
    settings = RunSettings(campaign="t", results=tmp_path, max_automatic_retries=0)
    [record] = run_epoch(CELL, settings, journey_factory(shared), product_driver("testbed").secret_patterns)

    assert record.verdict is Verdict.PASSED_WITH_RECOVERY, record.reason
    assert shared.browser is not gone and shared.browser.is_connected()
    assert [r.kind for r in record.recoveries] == [RecoveryKind.BROWSER_RELAUNCHED]
    saved = _package(tmp_path, record.attempt)
    assert saved["verdict"] == "passed_with_recovery" and saved["recoveries"][0]["kind"] == "browser-relaunched"
    assert any(event["step"] == "recovered: browser-relaunched" for event in saved["timeline"])
    attempts = load_attempts([tmp_path])
    assert "1 passed_with_recovery" in summary_text(summarize(attempts).campaigns[0], attempts)
    assert main(["regrade", str(tmp_path)]) == 0  # judged again from the package alone, the recovery included
    _, assessment = newest_assessment(tmp_path / "t" / CELL.execution_id / record.attempt) or ("", None)
    assert assessment is not None and assessment.verdict is Verdict.PASSED_WITH_RECOVERY


def test_only_the_harness_records_a_recovery_never_a_story_or_a_fault() -> None:
    """A story's deliberate fault (a restart, a Stop) is what it tests, not the machine recovering: the modules that
    inject them cannot call the recorder's ``recovered``."""
    callers = set()
    for path in sorted(ROOT.glob("**/*.py")):
        if ".venv" in path.parts or "tests" in path.parts:
            continue
        tree = ast.parse(path.read_text(), str(path))
        if any(
            isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "recovered"
            for node in ast.walk(tree)
        ):
            callers.add(path.relative_to(ROOT).as_posix())
    assert callers == {"harness/running/attempt.py", "harness/running/shared_browser.py"}
