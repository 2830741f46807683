"""`harness compare` on packages written by the report's fixtures: the exact tests, exclusions, order, designs."""

from __future__ import annotations

import contextlib
import io
import json
import random
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from playwright.sync_api import Page, expect

from harness.cli import main
from harness.core.records import AttemptRecord, CheckRecord, PairMark
from harness.core.settings import RunSettings
from harness.core.verdicts import Verdict
from harness.results.compare import (
    IMPROVED,
    MCNEMAR,
    NO_DIFFERENCE,
    ONE_SIDE,
    REGRESSED,
    compare,
    comparison_schema_text,
)
from harness.results.plan import write_plan
from harness.results.report.fixtures import DIGEST, EPOCH, write_attempt

P, F, INFRA, S, U = (
    Verdict.PASSED,
    Verdict.FAILED,
    Verdict.INFRASTRUCTURE_FAILED,
    Verdict.SKIPPED,
    Verdict.UNEXERCISED,
)
BUILD = "s.scripted.local.build-revise"


def _attempt(results: Path, campaign: str, cell: str, name: str, verdict: Verdict, minute: int, **update: Any) -> None:
    """One light package; ``harness_digest`` goes to its provenance, anything else over its record's fields."""
    folder = write_attempt(
        results,
        campaign,
        cell,
        name,
        verdict,
        started_at=EPOCH + timedelta(minutes=minute),
        screenshots=0,
        phases=(),
        harness_digest=update.pop("harness_digest", DIGEST),
    )
    if update:
        path = folder / "attempt.json"
        record = AttemptRecord.model_validate_json(path.read_text())
        path.write_text(record.model_copy(update=update).model_dump_json())


def _campaign(results: Path, campaign: str, cells: dict[str, list[Verdict]], **update: Any) -> None:
    for cell, verdicts in cells.items():
        for number, verdict in enumerate(verdicts, start=1):
            _attempt(results, campaign, f"s.scripted.local.{cell}", f"{number}-{cell}", verdict, number, **update)


def _json(results: Path, *campaigns: str, alpha: str = "0.05") -> dict[str, Any]:
    out = _run(results, *campaigns, "--json", "--alpha", alpha)
    return json.loads(out)


def _run(results: Path, *args: str) -> str:
    """`harness compare`'s standard output (it must exit 0)."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main(["compare", *args, "--results", str(results)]) == 0
    return buffer.getvalue()


def test_four_passes_against_two_failures_is_no_detected_difference(tmp_path: Path) -> None:
    _campaign(tmp_path, "base", {"build-revise": [P] * 4})
    _campaign(tmp_path, "cand", {"build-revise": [F] * 2})
    (cell,) = compare(["base", "cand"], tmp_path).cells
    assert (cell.base and cell.base.passed, cell.base and cell.base.n) == (4, 4)
    assert (cell.candidate and cell.candidate.passed, cell.candidate and cell.candidate.n) == (0, 2)
    assert (cell.direction, cell.p_exact, cell.test) == (NO_DIFFERENCE, "1/15", "Fisher's exact test, two-sided")
    assert cell.p_value == pytest.approx(1 / 15)
    # 1.0 against 0.0 needs 4 per side (see test_significance): named as an approximation
    assert cell.approx_attempts_per_side == 4


def test_four_passes_against_four_failures_regressed(tmp_path: Path) -> None:
    _campaign(tmp_path, "base", {"build-revise": [P] * 4})
    _campaign(tmp_path, "cand", {"build-revise": [F] * 4})
    (cell,) = compare(["base", "cand"], tmp_path).cells
    assert (cell.direction, cell.p_exact, cell.approx_attempts_per_side) == (REGRESSED, "1/35", None)
    assert cell.p_value == pytest.approx(2 / 70) == cell.p_adjusted
    out = _run(tmp_path, "base", "cand")
    assert "regressed (p = 1/35" in out and "recorded:" in out


def test_every_attempt_is_counted_or_excluded_by_name(tmp_path: Path) -> None:
    failed_check = [CheckRecord(id="fault.premise", passed=False)]
    _campaign(tmp_path, "base", {"a": [P, P, P, INFRA, S]})
    _attempt(tmp_path, "base", "s.scripted.local.a", "6-a", U, 6)  # unexercised, every check held: excluded
    _attempt(tmp_path, "base", "s.scripted.local.a", "7-a", INFRA, 7, interrupted=True)
    (tmp_path / "base" / "s.scripted.local.a" / "8-a").mkdir()  # killed before its record: broken
    _campaign(tmp_path, "cand", {"a": [F, P]})
    _attempt(tmp_path, "cand", "s.scripted.local.a", "3-a", U, 3, checks=failed_check)  # a failed check: a failure
    (cell,) = compare(["base", "cand"], tmp_path).cells
    assert cell.base is not None and cell.candidate is not None
    assert (cell.base.passed, cell.base.failed, cell.base.n) == (3, 0, 3)
    assert cell.base.excluded == {
        "broken": 1,
        "infrastructure_failed": 1,
        "interrupted": 1,
        "skipped": 1,
        "unexercised": 1,
    }
    assert (cell.candidate.passed, cell.candidate.failed, cell.candidate.excluded) == (1, 2, {})
    out = _run(tmp_path, "base", "cand")
    assert "excluded: base 1 broken, 1 infrastructure_failed, 1 interrupted, 1 skipped, 1 unexercised" in out


def test_holm_adjusts_across_cells_and_alpha_is_the_users(tmp_path: Path) -> None:
    _campaign(tmp_path, "base", {"a": [P] * 4, "b": [P] * 4, "gone": [P]})
    _campaign(tmp_path, "cand", {"a": [F] * 4, "b": [F] * 4, "new": [F]})
    # each cell p = 1/35 = .0286; Holm with two tests: 2/35 = .0571 for both, above .05
    found = {cell["execution_id"].rsplit(".", 1)[-1]: cell for cell in _json(tmp_path, "base", "cand")["cells"]}
    assert {name: cell["direction"] for name, cell in found.items()} == {
        "a": NO_DIFFERENCE,
        "b": NO_DIFFERENCE,
        "gone": ONE_SIDE,
        "new": ONE_SIDE,
    }
    assert found["a"]["p_adjusted"] == pytest.approx(2 / 35)
    assert found["gone"]["candidate"] is None and found["new"]["base"] is None
    again = _json(tmp_path, "base", "cand", alpha="0.1")
    assert [cell["direction"] for cell in again["cells"]][:2] == [REGRESSED, REGRESSED]


def _without_time(text: str) -> str:
    """The --json text with its one timestamp blanked: everything else must match byte for byte."""
    blanked, count = re.subn(r'"compared_at": "[^"]+"', '"compared_at": ""', text)
    assert count == 1
    return blanked


def test_the_result_does_not_depend_on_folder_names_times_or_order(tmp_path: Path) -> None:
    _campaign(tmp_path, "base", {"a": [P, F, P, P, INFRA], "b": [F, F, P]})
    _campaign(tmp_path, "cand", {"a": [F, F, P, S], "b": [P, P, P, P]})
    before = _run(tmp_path, "base", "cand", "--json")
    shuffle = random.Random(49)
    for cell in (tmp_path / "cand").iterdir():
        folders = sorted(cell.iterdir())
        names = [f"{len(folders) - index}-renamed" for index in range(len(folders))]  # reversed numbering
        shuffle.shuffle(names)
        for folder, name in zip(folders, names, strict=True):
            folder.rename(cell / f".{name}")
        for folder in cell.iterdir():
            folder.rename(cell / folder.name.lstrip("."))
    for path in (tmp_path / "base").glob("*/*/attempt.json"):  # start times reversed, listing order with them
        record = AttemptRecord.model_validate_json(path.read_text())
        timing = record.timing.model_copy(update={"started_at": EPOCH - (record.timing.started_at - EPOCH)})
        path.write_text(record.model_copy(update={"timing": timing}).model_dump_json())
    after = _run(tmp_path, "base", "cand", "--json")
    assert _without_time(before) == _without_time(after)  # apart from its timestamp, not one byte moved


def test_three_campaigns_make_a_matrix_tested_against_the_first(tmp_path: Path) -> None:
    _campaign(tmp_path, "one", {"a": [P] * 4})
    _campaign(tmp_path, "two", {"a": [P, P, P, F]})
    _campaign(tmp_path, "three", {"a": [F] * 4})
    comparison = compare(["one", "two", "three"], tmp_path)
    assert [(c.candidate_campaign, c.p_exact) for c in comparison.cells] == [("two", "1"), ("three", "1/35")]
    # Holm over the two tests: 1/35 * 2 = .057 (no difference at .05)
    assert [c.p_adjusted for c in comparison.cells] == [1.0, pytest.approx(2 / 35)]
    out = _run(tmp_path, "one", "two", "three")
    header = out.splitlines()[2]
    assert header.split()[:4] == ["cell", "one", "two", "three"]
    assert "4/4 100% [51-100]" in out and "3/4 75% [30-95]" in out and "0/4 0% [0-49]" in out
    assert "three: no difference detected (p = 1/35, Holm 0.0571)" in out


def _paired(results: Path, campaign: str, halves: list[tuple[str, Verdict, Verdict]], plan: bool = True) -> None:
    """Each (pair id, base verdict, candidate verdict), the candidate's attempts written in another order."""
    if plan:
        write_plan(RunSettings(cells=(BUILD,), campaign=campaign, results=results, pair="product-defect=,broken"))
    for number, (pair, base, _) in enumerate(halves, start=1):
        mark = PairMark(id=pair, variant="product-defect=", setting="product_defect", first=True)
        _attempt(results, campaign, BUILD, f"{number}-base", base, number, pair=mark)
    for number, (pair, _, candidate) in enumerate(reversed(halves), start=1):
        mark = PairMark(id=pair, variant="product-defect=broken", setting="product_defect", first=False)
        _attempt(results, campaign, BUILD, f"{number}-cand", candidate, 100 + number, pair=mark)


def test_a_paired_campaign_is_compared_on_its_recorded_pairs_only(tmp_path: Path) -> None:
    # Read by position, these would be 2 pass->fail and 2 fail->pass; the recorded pairs never moved.
    _paired(tmp_path, "paired", [("p1", P, P), ("p2", P, P), ("p3", F, F), ("p4", F, F)])
    (cell,) = compare(["paired"], tmp_path).cells
    assert cell.pairs is not None
    assert (cell.pairs.both_passed, cell.pairs.pass_to_fail, cell.pairs.fail_to_pass, cell.pairs.both_failed) == (
        2,
        0,
        0,
        2,
    )
    assert (cell.test, cell.p_exact, cell.direction) == (
        "McNemar's exact test, two-sided (binomial on the discordant pairs)",
        "1",
        NO_DIFFERENCE,
    )


@pytest.mark.parametrize(
    ("moved", "way", "direction", "p"),
    [
        (6, (P, F), REGRESSED, "1/32"),  # the 003 rule holds and 2 / 2^6 < .05
        (6, (F, P), IMPROVED, "1/32"),
        (2, (P, F), NO_DIFFERENCE, "1/2"),  # the rule holds, but two pairs cannot be significant
    ],
)
def test_the_paired_rule_needs_the_003_rule_and_p_below_alpha(
    tmp_path: Path, moved: int, way: tuple[Verdict, Verdict], direction: str, p: str
) -> None:
    halves = [(f"p{n}", *way) for n in range(moved)] + [("same", P, P), ("machine", P, INFRA)]
    _paired(tmp_path, "paired", halves)
    (tmp_path / "paired" / BUILD / "9-killed").mkdir()
    comparison = compare(["paired"], tmp_path)
    assert "1 package(s) have no readable record, so no variant: left out" in comparison.warnings
    (cell,) = comparison.cells
    assert cell.pairs is not None and cell.pairs.rule_holds
    transitions = (cell.pairs.pass_to_fail, cell.pairs.fail_to_pass)
    assert transitions == ((moved, 0) if way == (P, F) else (0, moved))
    assert cell.pairs.excluded == {"infrastructure_failed": 1}
    assert (cell.direction, cell.p_exact, cell.approx_attempts_per_side) == (direction, p, None)


def test_one_pair_the_other_way_breaks_the_rule(tmp_path: Path) -> None:
    _paired(tmp_path, "paired", [*((f"p{n}", P, F) for n in range(8)), ("back", F, P)])
    (cell,) = compare(["paired"], tmp_path).cells
    # 8 against 1: 2 * (C(9,0) + C(9,1)) / 2^9 = 20/512 = 5/128 < .05, but seed 003's rule wants none the other way
    assert (cell.p_exact, cell.pairs and cell.pairs.rule_holds, cell.direction) == ("5/128", False, NO_DIFFERENCE)


def test_an_unpaired_campaign_is_never_compared_as_paired(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _paired(tmp_path, "marked", [(f"p{n}", P, F) for n in range(6)], plan=False)  # pairs recorded, the plan lost
    _paired(tmp_path, "paired", [(f"p{n}", P, F) for n in range(6)])
    _campaign(tmp_path, "plain", {"build-revise": [P] * 4})
    _campaign(tmp_path, "other", {"build-revise": [F] * 4})
    for args, says in (
        (["plain"], "plain is not a paired campaign (no attempt carries a pair id)"),
        (["plain", "paired"], "paired is a paired campaign"),
        (["marked", "plain"], "marked is a paired campaign"),
    ):
        assert main(["compare", *args, "--results", str(tmp_path)]) == 2
        error = capsys.readouterr().err
        assert error.count("\n") == 1 and says in error
    # the recorded pairs make a campaign paired, with or without its plan; two campaigns are independent samples
    (marked,) = compare(["marked"], tmp_path).cells
    assert (marked.test, marked.p_exact, marked.pairs and marked.pairs.pass_to_fail) == (MCNEMAR, "1/32", 6)
    (cell,) = compare(["plain", "other"], tmp_path).cells
    assert (cell.test, cell.pairs, cell.p_exact) == ("Fisher's exact test, two-sided", None, "1/35")


def test_json_matches_its_schema_and_names_what_the_issue_asks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _campaign(tmp_path, "base", {"a": [P, P]})
    _campaign(tmp_path, "cand", {"a": [P, F]})
    assert main(["compare", "base", "cand", "--results", str(tmp_path), "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    jsonschema.validate(found, json.loads(comparison_schema_text()))
    cell = found["cells"][0]
    assert {key: cell[key] for key in ("test", "p_value", "direction")} == {
        "test": "Fisher's exact test, two-sided",
        "p_value": 1.0,
        "direction": NO_DIFFERENCE,
    }
    assert (cell["base"]["passed"], cell["base"]["n"], cell["candidate"]["passed"], cell["candidate"]["n"]) == (
        2,
        2,
        1,
        2,
    )
    assert main(["schema", "--of", "comparison"]) == 0
    assert json.loads(capsys.readouterr().out)["$id"] == "urn:everyday-evals:comparison:v2"
    assert (tmp_path / "comparisons" / "base--cand.json").is_file()


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["base", "nowhere"], "nowhere"),
        (["base", "comparisons"], "comparisons"),
        (["base", "base", "--alpha", "2"], "--alpha"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, args: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _campaign(tmp_path, "base", {"a": [P]})
    (tmp_path / "comparisons").mkdir(exist_ok=True)
    assert main(["compare", *args, "--results", str(tmp_path)]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and says in error


def test_the_report_shows_a_page_per_comparison_in_a_real_browser(tmp_path: Path, page: Page) -> None:
    from harness.results.compare import record_comparison
    from harness.results.report.build import build_report

    _campaign(tmp_path, "base", {"a": [P] * 4, "gone": [P]})
    _campaign(tmp_path, "cand", {"a": [F] * 4}, harness_digest="e" * 64)
    record_comparison(compare(["base", "cand"], tmp_path), tmp_path)
    _paired(tmp_path, "paired", [(f"p{n}", P, F) for n in range(6)])
    record_comparison(compare(["paired"], tmp_path), tmp_path)
    built = build_report([tmp_path], tmp_path / "site")
    page.goto(built.index.as_uri())
    page.get_by_role("link", name="base → cand").click()
    row = page.locator("table.comparison tr", has_text="s.scripted.local.a")
    expect(row).to_contain_text("4/4 100% [51%, 100%]")
    expect(row).to_contain_text("0/4 0% [0%, 49%]")
    expect(row).to_contain_text("Fisher's exact test, two-sided")
    expect(row.locator("td").nth(5)).to_have_text("1/35")
    expect(row.locator("td").last).to_have_text("regressed")
    expect(page.locator("table.comparison tr", has_text="gone")).to_contain_text("only on one side")
    expect(page.locator("div.warn", has_text="the sides differ in harness_digest")).to_have_count(1)
    expect(page.locator("tr.warn", has_text="harness_digest")).to_have_count(1)  # the provenance row, marked
    page.get_by_role("link", name="← report").click()
    page.get_by_role("link", name="paired (paired: product-defect= → product-defect=broken)").click()
    row = page.locator("table.comparison tr", has_text="s.scripted.local.build-revise")
    expect(row).to_contain_text("McNemar's exact test")
    expect(row.locator("td").nth(6)).to_have_text("0")  # no pair went from fail to pass
    expect(row).to_contain_text("1/32")
    expect(row.locator("td").last).to_have_text("regressed")


def test_a_regraded_campaign_is_compared_on_its_newest_assessments_and_says_so(tmp_path: Path) -> None:
    from harness.judging.regrade import Assessment, write_assessment

    _campaign(tmp_path, "base", {"build-revise": [P] * 4})
    _campaign(tmp_path, "cand", {"build-revise": [F] * 4})
    # A corrected check finds two of the candidate's failures were passes after all.
    for folder in sorted((tmp_path / "cand" / BUILD).iterdir())[:2]:
        assessment = Assessment(
            rules_digest="a" * 64,
            based_on="attempt.json",
            verdict=P,
            reason="",
            verdict_before=F,
            reason_before="",
            checks=[],
        )
        write_assessment(folder, assessment)
    comparison = compare(["base", "cand"], tmp_path)
    (cell,) = comparison.cells
    # 4 of 4 against 2 of 4: p = (15 + 15) / 70 = 3/7
    assert (cell.candidate and cell.candidate.passed, cell.p_exact, cell.direction) == (2, "3/7", NO_DIFFERENCE)
    assert comparison.candidates[0].read_from == {"assessment aaaaaaaaaaaa": 2, "attempt.json": 2}
    assert comparison.base.read_from == {"attempt.json": 4}
    assert "verdicts read (regraded): cand: 2 from assessment aaaaaaaaaaaa, 2 from attempt.json" in _run(
        tmp_path, "base", "cand"
    )
