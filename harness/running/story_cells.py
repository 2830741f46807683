"""The one pytest test that runs a story cell; the plugin parametrizes it with the selection."""

from __future__ import annotations

import pytest

from harness.core.catalog import Cell
from harness.core.outcomes import is_known_finding, unexpected
from harness.core.settings import RunSettings
from harness.core.verdicts import Verdict
from harness.products import product_driver
from harness.running.attempt import run_cell
from harness.running.journey import journey_factory
from harness.running.plugin import browser_type_launch_args  # noqa: F401  a module fixture outranks pytest-playwright's


def test_cell(cell: Cell, run_settings: RunSettings, browser, record_property) -> None:
    secret_shapes = product_driver(cell.environment.product).secret_patterns
    attempts = run_cell(cell, run_settings, journey_factory(browser), secret_shapes)
    final = attempts[-1]
    record_property("verdict", final.verdict.value)
    record_property("attempts", len(attempts))
    known = is_known_finding(final, cell.known_finding)
    record_property("known_finding", known)
    if final.verdict is Verdict.SKIPPED:
        pytest.skip(final.reason)
    if problem := unexpected(final, cell.known_finding):
        pytest.fail(problem, pytrace=False)
    if known and cell.known_finding is not None:
        pytest.xfail(f"known finding: {cell.known_finding.what}; {final.reason}")
