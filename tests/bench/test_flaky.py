"""`make flaky`'s table on packages written by the report's fixtures: a cell whose endings differ is named."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from bench.flaky import flaky_table
from harness.core.verdicts import Verdict
from harness.results.report.fixtures import EPOCH, write_attempt


def test_a_cell_whose_endings_differ_is_flaky_with_its_checks(tmp_path: Path) -> None:
    for cell, verdicts in {"steady": [Verdict.PASSED] * 2, "wobbly": [Verdict.PASSED, Verdict.FAILED]}.items():
        for number, verdict in enumerate(verdicts, start=1):
            started = EPOCH + timedelta(minutes=number)
            write_attempt(tmp_path, "f", f"s.scripted.local.{cell}", f"{number}-x", verdict, started_at=started)
    lines, flaky, played = flaky_table(tmp_path, "f")
    assert (flaky, played) == (1, 2)
    assert lines[0].startswith("steady ") and lines[1].startswith("FLAKY ")
    assert "oracle.build failed 1/2" in lines[2] and "lifecycle.tasks-done failed 1/2" in lines[2]
