"""`harness compare` on packages written by the report's fixtures: pairing, directions, the test, the warnings."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import jsonschema
import pytest

from harness.cli import main
from harness.core.verdicts import Verdict
from harness.results.compare import compare, comparison_schema_text
from harness.results.report.fixtures import EPOCH, write_attempt

P, F = Verdict.PASSED, Verdict.FAILED


def _campaign(results: Path, campaign: str, cells: dict[str, list[Verdict]], digest: str = "d" * 64) -> None:
    for cell, verdicts in cells.items():
        for number, verdict in enumerate(verdicts, start=1):
            write_attempt(
                results,
                campaign,
                f"s.scripted.local.{cell}",
                f"{number}-{cell}",
                verdict,
                started_at=EPOCH + timedelta(minutes=number),
                harness_digest=digest,
                screenshots=0,
                phases=(),
            )


@pytest.fixture
def results(tmp_path: Path) -> Path:
    _campaign(tmp_path, "base", {"a": [P, P, P], "b": [P, P, P], "c": [P, F, P], "gone": [P]})
    _campaign(tmp_path, "cand", {"a": [F, F, P], "b": [P, P, P], "c": [P, F, P], "new": [F]}, digest="e" * 64)
    return tmp_path


def test_a_cell_that_broke_twice_regressed_and_the_others_did_not(results: Path) -> None:
    comparison = compare("base", "cand", results)
    by_cell = {cell.execution_id.rsplit(".", 1)[-1]: cell for cell in comparison.cells}
    assert (by_cell["a"].pass_to_fail, by_cell["a"].fail_to_pass, by_cell["a"].direction) == (2, 0, "regressed")
    assert by_cell["b"].direction == by_cell["c"].direction == "unchanged"
    assert by_cell["a"].base.rate == 1.0 and by_cell["a"].candidate.rate == pytest.approx(1 / 3)
    assert comparison.only_base == ["s.scripted.local.gone"] and comparison.only_candidate == ["s.scripted.local.new"]
    assert comparison.counts == {"improved": 0, "regressed": 1, "unchanged": 2, "inconclusive": 0}
    # one cell worse, none better: 2 * 1/2 = 1
    assert (comparison.test.worse, comparison.test.better, comparison.test.p_value) == (1, 0, 1.0)
    assert any("fewer than 10" in warning for warning in comparison.warnings)
    assert any(warning.startswith("the sides differ in harness_digest") for warning in comparison.warnings)


def test_one_transition_is_not_a_direction(tmp_path: Path) -> None:
    _campaign(tmp_path, "base", {"a": [P, P]})
    _campaign(tmp_path, "cand", {"a": [P, F]})
    assert compare("base", "cand", tmp_path).cells[0].direction == "inconclusive"


def test_json_matches_its_schema_and_the_table_reads(results: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", "base", "cand", "--results", str(results), "--json"]) == 0
    jsonschema.validate(json.loads(capsys.readouterr().out), json.loads(comparison_schema_text()))
    assert main(["schema", "--of", "comparison"]) == 0
    assert json.loads(capsys.readouterr().out)["$id"].startswith("urn:everyday-evals:comparison:")
    assert main(["compare", str(results / "base"), str(results / "cand")]) == 0
    out = capsys.readouterr().out
    assert "regressed" in out and "p = 1" in out and "only in the base" in out
    assert (results / "comparisons" / "base--cand.json").is_file()


@pytest.mark.parametrize("side", ["nowhere", "comparisons"])
def test_bad_sides_are_one_line_and_exit_2(results: Path, side: str, capsys: pytest.CaptureFixture[str]) -> None:
    (results / "comparisons").mkdir(exist_ok=True)
    assert main(["compare", "base", side, "--results", str(results)]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and side in error


def test_the_report_shows_the_figures_and_a_page_per_comparison(results: Path, tmp_path: Path) -> None:
    from harness.results.compare import record_comparison
    from harness.results.report.build import build_report

    record_comparison(compare("base", "cand", results), results)
    built = build_report([results], tmp_path / "site")
    index = built.index.read_text()
    # cell a on the base: 3 of 3, Wilson [44%, 100%]; on the candidate 1 of 3, pass^2 = C(1,2)/C(3,2) = 0
    assert "100% [44%, 100%]" in index and "33% [6%, 79%]" in index
    page = (tmp_path / "site" / "comparisons" / "base--cand.html").read_text()
    assert "regressed" in page and "harness_digest" in page and "only in the base" in page
