"""The one pytest test that runs a story cell; the plugin parametrizes it with the selection."""

from __future__ import annotations

from collections import Counter

import pytest

from harness.core.catalog import Cell
from harness.core.outcomes import is_known_finding, unexpected
from harness.core.settings import RunSettings
from harness.core.verdicts import Verdict
from harness.products import product_driver
from harness.results.epochs import epoch_ends
from harness.running.attempt import run_cell
from harness.running.journey_factory import journey_factory
from harness.running.plugin import (  # noqa: F401  module fixtures outrank pytest-playwright's
    browser,
    browser_type_launch_args,
    shared_browser,
)
from harness.running.shared_browser import SharedBrowser


def test_cell(cell: Cell, run_settings: RunSettings, shared_browser: SharedBrowser, record_property) -> None:  # noqa: F811
    """The cell's epochs played now; the item fails when any of them is not what the catalog expects."""
    secret_shapes = product_driver(cell.environment.product).secret_patterns
    attempts = run_cell(cell, run_settings, journey_factory(shared_browser), secret_shapes)
    ends = epoch_ends(attempts)
    record_property("attempts", len(attempts))
    if not ends:
        record_property("verdict", "complete already")
        pytest.skip("the campaign already holds every attempt of this cell")
    counts = Counter(end.verdict.value for end in ends)
    label = ends[0].verdict.value if len(ends) == 1 else ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
    record_property("verdict", label)
    known = all(is_known_finding(end, cell.known_finding) for end in ends)
    record_property("known_finding", known)
    if all(end.verdict is Verdict.SKIPPED for end in ends):
        pytest.skip(ends[-1].reason)
    if problems := [problem for end in ends if (problem := unexpected(end, cell.known_finding))]:
        pytest.fail("; ".join(problems), pytrace=False)
    if known and cell.known_finding is not None:
        pytest.xfail(f"known finding: {cell.known_finding.what}; {ends[-1].reason}")
