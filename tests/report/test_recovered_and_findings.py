"""A pass after the harness recovered its own infrastructure is shown apart everywhere a verdict is counted, and a
failure on a known finding's check that does not look like it is shown beside the finding as new."""

from __future__ import annotations

from pathlib import Path

from harness.core.records import CheckRecord, Recovery, RecoveryKind
from harness.core.verdicts import Verdict
from harness.results.compare import compare
from harness.results.compare_text import table
from harness.results.packages import load_attempts
from harness.results.promotion import Decision, promotion_record
from harness.results.report.build import build_report
from harness.results.report.fixtures import SCRIPTED_CELL, write_attempt
from harness.results.summary import summarize, summary_text

RELAUNCHED = Recovery(
    kind=RecoveryKind.BROWSER_RELAUNCHED, detail="the browser was gone when the attempt opened its page"
)
PAPERCLIP_STOP = "everyday-workflows-paperclip.scripted.paperclip-local.stop-redirect"


def _campaign(results: Path, campaign: str, recovered: bool) -> None:
    write_attempt(results, campaign, SCRIPTED_CELL, "1-aaaa")
    write_attempt(
        results,
        campaign,
        SCRIPTED_CELL,
        "2-aaaa",
        Verdict.PASSED_WITH_RECOVERY if recovered else Verdict.PASSED,
        reason="passed after the harness recovered its own infrastructure" if recovered else "",
        recoveries=(RELAUNCHED,) if recovered else (),
    )


def test_a_recovered_pass_counts_as_a_pass_and_is_shown_apart_in_summary_figures_and_promotion(tmp_path: Path) -> None:
    _campaign(tmp_path, "c1", recovered=True)
    attempts = load_attempts([tmp_path])
    summary = summarize(attempts)
    campaign = summary.campaigns[0]
    figures = campaign.cells[SCRIPTED_CELL]
    assert (figures.tally.passed, figures.tally.passed_with_recovery, figures.n, figures.rate) == (1, 1, 2, 1.0)
    assert campaign.by_mode["scripted"]["passed"] == 1 and campaign.by_mode["scripted"]["passed_with_recovery"] == 1
    assert "1 passed, 1 passed_with_recovery" in summary_text(campaign, attempts)
    record = promotion_record(Decision(suite="everyday-workflows-scripted", reasons=[], counted=attempts))
    assert record.recovered == [f"c1/{SCRIPTED_CELL}/2-aaaa"]
    assert record.counts[SCRIPTED_CELL] == {"passed": 1, "passed_with_recovery": 1}


def test_compare_reads_a_recovered_pass_as_a_pass(tmp_path: Path) -> None:
    _campaign(tmp_path, "base", recovered=False)
    _campaign(tmp_path, "candidate", recovered=True)
    comparison = compare([str(tmp_path / "base"), str(tmp_path / "candidate")])
    cell = next(c for c in comparison.cells)
    assert cell.candidate is not None and cell.base is not None
    assert (cell.candidate.passed, cell.candidate.passed_with_recovery, cell.candidate.rate) == (2, 1, 1.0)
    assert cell.direction == "no difference detected"
    assert "2/2 100%" in table(comparison) and "(1 recovered)" in table(comparison)


def test_the_report_shows_each_recovery_on_the_attempt_page_and_apart_in_the_figures(tmp_path: Path) -> None:
    _campaign(tmp_path / "results", "c1", recovered=True)
    build_report([tmp_path / "results"], tmp_path / "report")
    pages = {path.name: path.read_text() for path in (tmp_path / "report").rglob("*.html")}
    recovered = next(text for text in pages.values() if 'data-testid="recoveries"' in text)
    assert "browser-relaunched" in recovered and "a pass, not a clean one" in recovered
    assert 'data-testid="recovered">1 passed with recovery' in pages["index.html"]
    clean = [text for name, text in pages.items() if "1-aaaa" in name]
    assert clean and all('data-testid="recoveries"' not in text for text in clean)


def test_the_report_shows_a_new_failure_on_a_findings_check_beside_the_finding(tmp_path: Path) -> None:
    other_way = CheckRecord(
        id="stop.nothing-ran-after-stop",
        passed=False,
        detail="ran after Stop, uninvited: run 2 (succeeded, cause recovery, 0 delivery(ies))",
    )
    as_declared = other_way.model_copy(
        update={"detail": "ran after Stop, uninvited: run 2 (running, cause not stated, 1 delivery(ies))"}
    )
    write_attempt(tmp_path / "results", "c1", PAPERCLIP_STOP, "1-aaaa", Verdict.FAILED, also_checks=(other_way,))
    write_attempt(tmp_path / "results", "c1", PAPERCLIP_STOP, "2-aaaa", Verdict.FAILED, also_checks=(as_declared,))
    build_report([tmp_path / "results"], tmp_path / "report")
    pages = {path.name: path.read_text() for path in (tmp_path / "report").rglob("*.html") if "aaaa" in path.name}
    new = next(text for name, text in pages.items() if "1-aaaa" in name)
    known = next(text for name, text in pages.items() if "2-aaaa" in name)
    assert 'data-testid="known-finding"' in new and 'data-testid="new-failures"' in new and "cause recovery" in new
    assert 'data-testid="known-finding"' in known and 'data-testid="new-failures"' not in known
