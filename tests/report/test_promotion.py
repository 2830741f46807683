"""`harness promote` refuses, naming every reason, and accepts only reviewed, repeated, calibrated evidence."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from calibration.record import record_calibration
from calibration.runner import Row
from harness.cli import main
from harness.core import registry
from harness.core.catalog import SCRIPTED_SUITE
from harness.core.verdicts import Verdict
from harness.judges.campaign import judge_campaign
from harness.judges.settings import JudgeSettings
from harness.results.calibration_record import CalibrationRecord, write_calibration
from harness.results.promotion import evaluate, promote
from harness.results.report.build import build_report
from harness.results.report.fixtures import DIGEST, REVISION, write_attempt, write_broken

CELLS = [
    c.execution_id
    for c in registry.catalog().cells()
    if c.suite.name == SCRIPTED_SUITE and c.environment.name == "local"
]
BUILD = CELLS[0]


def calibrated(results: Path, digest: str = DIGEST, passed: bool = True, complete: bool = True) -> None:
    write_calibration(
        results,
        CalibrationRecord(
            harness_digest=digest,
            source_revision=REVISION,
            source_dirty=False,
            suites=["oracle", "stories"],
            complete=complete,
            passed=passed,
            rows=10,
            wrong=[] if passed else ["oracle: bad.zip passed"],
        ),
    )


def three_each(results: Path, **overrides: object) -> None:
    """Three campaigns of every local scripted cell, each judged by the rules (judged criteria gate promotion)."""
    for number, campaign in enumerate(("c1", "c2", "c3"), start=1):
        for cell in CELLS:
            write_attempt(results, campaign, cell, f"{number}-aaaa", screenshots=1, phases=("build",), **overrides)  # type: ignore[arg-type]
        judge_campaign(results / campaign, ["rules"], JudgeSettings())


@pytest.fixture
def results(tmp_path: Path) -> Path:
    root = tmp_path / "results"
    three_each(root)
    calibrated(root)
    return root


def test_accepts_and_writes_a_record_the_report_shows(results: Path, tmp_path: Path) -> None:
    decision, path = promote(SCRIPTED_SUITE, [results], promoted_by="maintainer")
    assert decision.reasons == [] and path is not None and path.parent == results / "promotions"
    record = json.loads(path.read_text())
    assert (
        record["suite"] == SCRIPTED_SUITE
        and record["source_revision"] == REVISION
        and record["harness_digest"] == DIGEST
    )
    assert record["independent"] == dict.fromkeys(CELLS, 3)
    assert record["counts"][BUILD] == {"passed": 3}
    build_report([results], tmp_path / "report")
    index = (tmp_path / "report" / "index.html").read_text()
    assert 'class="promotion"' in index and REVISION[:12] in index


def test_names_every_reason_at_once(tmp_path: Path) -> None:
    root = tmp_path / "results"
    write_attempt(root, "c1", BUILD, "1-aaaa", source_dirty=True)
    write_attempt(root, "c2", BUILD, "1-aaaa", source_revision="2" * 40, harness_digest="e" * 64)
    write_attempt(root, "c3", BUILD, "1-aaaa", Verdict.FAILED)
    write_broken(root, "c3", CELLS[1], "1-bbbb", None)
    reasons = evaluate(SCRIPTED_SUITE, [root]).reasons
    text = "\n".join(reasons)
    assert "1 attempt(s) ran on a dirty source tree: c1/" in text
    assert "different source revisions" in text and "different harness digests" in text
    assert f"no calibration record for harness digest {DIGEST}" in text and "e" * 64 in text
    assert f"{CELLS[1]} has 0 independent attempt(s)" in text
    assert f"c3/{BUILD}/1-aaaa is failed and has no review note" in text
    assert f"c3/{CELLS[1]}/1-bbbb is broken and has no review note" in text
    assert main(["promote", "--suite", SCRIPTED_SUITE, "--results", str(root)]) == 1
    assert not (root / "promotions").exists()


@pytest.mark.parametrize(
    ("passed", "complete", "expected"),
    [
        (False, True, "calibration failed for harness digest"),
        (True, False, "ran only oracle, stories, not every suite"),
    ],
)
def test_calibration_must_pass_completely_for_the_digest(
    results: Path, passed: bool, complete: bool, expected: str
) -> None:
    calibrated(results, passed=passed, complete=complete)
    assert [r for r in evaluate(SCRIPTED_SUITE, [results]).reasons if expected in r]


def test_calibration_of_another_digest_does_not_count(tmp_path: Path) -> None:
    root = tmp_path / "results"
    three_each(root)
    calibrated(root, digest="f" * 64)
    assert evaluate(SCRIPTED_SUITE, [root]).reasons == [
        f"no calibration record for harness digest {DIGEST} ({root}/calibration/{DIGEST}.json); run 'make calibrate'"
    ]


def test_record_calibration_writes_what_the_gate_reads(tmp_path: Path) -> None:
    row = Row(
        suite="oracle", delivery="good", mode="base", expected="pass", got="pass", deciding="-", detail="", ok=True
    )
    path = record_calibration([row], DIGEST, suites=["oracle", "stories"], results=tmp_path)
    assert path == tmp_path / "calibration" / f"{DIGEST}.json"
    assert CalibrationRecord.model_validate_json(path.read_text()).passed
    wrong = row.model_copy(update={"ok": False, "got": "fail"})
    assert not CalibrationRecord.model_validate_json(
        record_calibration([row, wrong], DIGEST, results=tmp_path).read_text()
    ).passed


def test_retry_of_an_infrastructure_failure_is_not_independent(results: Path) -> None:
    # A fourth campaign where the build cell broke and its retry passed: still one chain, not two.
    write_attempt(results, "c4", BUILD, "1-bbbb", Verdict.INFRASTRUCTURE_FAILED)
    write_attempt(results, "c4", BUILD, "2-bbbb", retry_of="1-bbbb")
    for campaign in ("c2", "c3"):
        for child in (results / campaign / BUILD).iterdir():
            for path in sorted(child.rglob("*"), reverse=True):
                path.unlink() if path.is_file() else path.rmdir()
            child.rmdir()
    reasons = evaluate(SCRIPTED_SUITE, [results]).reasons
    assert f"{BUILD} has 2 independent attempt(s) that passed or failed; 3 needed" in reasons
    assert any("1-bbbb is infrastructure_failed and has no review note" in r for r in reasons)


def test_failures_need_review_notes_then_promote(results: Path) -> None:
    failed = write_attempt(results, "c4", BUILD, "1-cccc", Verdict.FAILED)
    unexercised = write_attempt(results, "c4", CELLS[2], "1-cccc", Verdict.UNEXERCISED)
    assert len(evaluate(SCRIPTED_SUITE, [results]).reasons) == 2
    assert (
        main(["review", str(failed), "--note", "agent left a trailing separator: real failure", "--reviewer", "rev"])
        == 0
    )
    assert main(["review", str(unexercised / "attempt.json"), "--note", "run ended early; premise not reached"]) == 0
    assert main(["promote", "--suite", SCRIPTED_SUITE, "--results", str(results)]) == 0
    record = json.loads(next((results / "promotions").glob("*.json")).read_text())
    assert {(n["attempt"], n["reviewer"]) for n in record["notes"]} >= {(f"c4/{BUILD}/1-cccc", "rev")}
    assert record["counts"][BUILD] == {"passed": 3, "failed": 1}


def test_diagnostics_stay_out_of_the_gate(results: Path) -> None:
    write_attempt(results, "c5", BUILD, "1-dddd", Verdict.FAILED, extra={"scripted_persona": "trailing-separator"})
    write_attempt(results, "c5", BUILD, "2-dddd", Verdict.FAILED, extra={"diagnostic": "exploratory"})
    write_attempt(results, "c5", BUILD, "3-dddd", Verdict.FAILED, extra={"product_defect": "download-other-bytes"})
    write_attempt(
        results,
        "c5",
        "everyday-workflows-scripted.scripted.local.recover-runner",
        "1-dddd",
        Verdict.FAILED,
        source_dirty=True,
    )
    decision = evaluate(SCRIPTED_SUITE, [results])
    assert decision.reasons == []
    assert all(a.campaign != "c5" for a in decision.counted)


def test_criteria_never_judged_are_a_reason_to_refuse(results: Path) -> None:
    write_attempt(results, "c6", "everyday-workflows-scripted.scripted.local.service-decline", "1-ffff")
    (reason,) = evaluate(SCRIPTED_SUITE, [results]).reasons
    assert reason.startswith("judged criterion service-decline explanation-after-decline (not judged) on 1 attempt(s)")
    judge_campaign(results / "c6", ["rules"], JudgeSettings())
    assert evaluate(SCRIPTED_SUITE, [results]).reasons == []


def test_campaign_restriction_and_unknown_suite(results: Path) -> None:
    write_attempt(results, "old", BUILD, "1-eeee", source_revision="0" * 40, source_dirty=True)
    assert len(evaluate(SCRIPTED_SUITE, [results]).reasons) == 2
    assert evaluate(SCRIPTED_SUITE, [results], campaigns=["c1", "c2", "c3"]).reasons == []
    assert evaluate("no-such-suite", [results]).reasons[0].startswith("unknown suite 'no-such-suite'; valid suites:")
    assert main(["review", str(results / "nowhere"), "--note", "x"]) == 2


def _epochs(results: Path, campaign: str, verdicts: list[Verdict]) -> None:
    for number, verdict in enumerate(verdicts, start=1):
        write_attempt(results, campaign, BUILD, f"{number}-bbbb", verdict, screenshots=0, phases=())


def test_a_candidate_worse_than_its_baseline_is_refused(tmp_path: Path) -> None:
    _epochs(tmp_path, "base", [Verdict.PASSED] * 4)
    _epochs(tmp_path, "same", [Verdict.PASSED, Verdict.FAILED, Verdict.PASSED, Verdict.FAILED])
    _epochs(tmp_path, "worse", [Verdict.FAILED] * 4)

    def regressions(candidate: str) -> list[str]:
        reasons = evaluate(SCRIPTED_SUITE, [tmp_path], campaigns=[candidate], baseline="base").reasons
        return [reason for reason in reasons if "baseline" in reason]

    # 4 of 4 against 0 of 4: Fisher's two-sided p = 2/70 (one cell, so Holm leaves it as it is)
    expected = f"{BUILD} regressed against the baseline base: Fisher's exact test, two-sided, p = 1/35 (Holm 0.0286)"
    assert regressions("worse") == [expected]
    # 4 of 4 against 2 of 4: p = (15 + 15) / 70, far from significant
    assert regressions("same") == [], "two failures in four are no detected regression"
    assert evaluate(SCRIPTED_SUITE, [tmp_path], baseline="base").reasons[-1].endswith("name exactly one --campaign")
