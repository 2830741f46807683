"""`harness regrade`: saved packages judged again by the current rules, a new assessment beside the original.

The packages are whole attempts played on the in-memory fake product (tests/fake_attempts.py): what is under test
is how a package is read and judged again, not a product. Every story test that plays real cells judges their
packages again too (tests/stories/harness_runs.py: assert_judged_again_alike).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.checks import invariants, ui, watch_samples
from harness.checks.invariants import Violation
from harness.checks.lifecycle import LifecycleFacts
from harness.cli import main
from harness.core.records import CheckRecord
from harness.core.verdicts import Verdict
from harness.judging.regrade import ASSESSMENTS_FOLDER, newest_assessment
from harness.results.packages import read_package
from tests.fake_attempts import lend_fake_product, play_fake

CELLS = ("build-revise-fake", "build-revise-fake-again")


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    results = tmp_path_factory.mktemp("regrade") / "results"
    with pytest.MonkeyPatch.context() as monkeypatch:
        lend_fake_product(monkeypatch)
        assert [play_fake(results, "test", case).verdict for case in CELLS] == [Verdict.PASSED] * len(CELLS)
        yield results


def _packages(results: Path) -> list[Path]:
    return sorted(path.parent for path in results.glob("test/*/*/attempt.json"))


def _bytes(results: Path) -> dict[Path, bytes]:
    return {
        path: path.read_bytes()
        for path in results.rglob("*")
        if path.is_file() and ASSESSMENTS_FOLDER not in path.parts
    }


def test_unchanged_rules_reproduce_every_check_and_verdict_beside_the_untouched_original(
    played: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _bytes(played)
    assert main(["regrade", str(played)]) == 0
    printed = capsys.readouterr().out
    assert f"regraded: {len(CELLS)} unchanged, 0 changed, 0 not regraded" in printed
    assert _bytes(played) == before, "the original files are left byte for byte"
    for package in _packages(played):
        name, assessment = newest_assessment(package) or ("", None)
        assert assessment is not None and name.startswith("001-")
        record = read_package(played, package, assessed=False).record
        assert record is not None
        assert assessment.checks == record.checks and assessment.verdict is record.verdict and not assessment.changed


def test_a_corrected_rule_changes_exactly_its_own_checks_and_the_report_names_them(
    played: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    def stricter(stored_ids: list[str | int], shown_ids: list[str | int]) -> CheckRecord:
        return CheckRecord(id="ui.thread-matches-records", passed=False, detail="corrected rule: shown twice")

    monkeypatch.setattr(ui, "thread_matches_records", stricter)
    assert main(["regrade", str(played)]) == 0
    assert "changed" in capsys.readouterr().out
    for package in _packages(played):
        _, assessment = newest_assessment(package) or ("", None)
        assert assessment is not None
        assert {change.id for change in assessment.changed} == {"ui.thread-matches-records"}
        assert assessment.verdict.value == "failed" and assessment.verdict_before.value == "passed"
        loaded = read_package(played, package)
        assert loaded.verdict == "failed" and loaded.assessment is not None
        assert loaded.assessment.changed == ["ui.thread-matches-records"]
    capsys.readouterr()
    assert main(["summary", "test", "--results", str(played), "--json"]) == 0
    [campaign] = json.loads(capsys.readouterr().out)["campaigns"]
    assert {cell["tally"]["failed"] for cell in campaign["cells"].values()} == {1}, (
        "counts come from the new assessment"
    )
    assert main(["report", "--results", str(played), "--out", str(tmp_path / "report")]) == 0
    pages = "".join(p.read_text() for p in (tmp_path / "report").rglob("*.html"))
    assert "Judged again" in pages and "ui.thread-matches-records" in pages


def test_a_corrected_invariant_rule_is_applied_to_the_looks_the_package_kept(
    played: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The invariants are judged again over the watch's saved looks: a corrected invariant changes exactly its own
    records, every other invariant (judged by the same rule call) stays as it was."""

    def corrected(facts: LifecycleFacts) -> list[Violation]:
        return [
            Violation(invariant="one-active-run", subject=f"task {task.id}", detail=f"corrected rule: task {task.id}")
            for task in facts.tasks
        ]

    rules = tuple(corrected if rule is invariants.one_active_run else rule for rule in invariants.RULES)
    monkeypatch.setattr(invariants, "RULES", rules)
    monkeypatch.setattr(watch_samples, "CONFIRM_S", 0.0)  # the fake's looks come milliseconds apart
    assert main(["regrade", str(played)]) == 0
    for package in _packages(played):
        _, assessment = newest_assessment(package) or ("", None)
        assert assessment is not None
        assert {change.id for change in assessment.changed} == {"invariant.one-active-run"}
        assert all(c.after is not None and c.after.failed for c in assessment.changed)
        assert [c.before.detail[:12] for c in assessment.changed if c.before] == ["held in all "]
        after = [c for c in assessment.checks if c.id == "invariant.one-active-run"]
        assert after and all(c.failed and c.detail.startswith("corrected rule: task ") for c in after)
        note = read_package(played, package).assessment
        assert note is not None and note.changed == ["invariant.one-active-run"]


def test_a_package_without_the_inputs_a_rule_now_needs_is_no_evidence_never_a_pass(
    played: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def needs_more(
        stored_ids: list[str | int], shown_ids: list[str | int], reloaded_ids: list[str | int]
    ) -> CheckRecord:
        return CheckRecord(id="ui.thread-matches-records", passed=True)

    monkeypatch.setattr(ui, "thread_matches_records", needs_more)
    assert main(["regrade", str(played)]) == 0
    for package in _packages(played):
        _, assessment = newest_assessment(package) or ("", None)
        assert assessment is not None and assessment.no_evidence == ["ui.thread-matches-records"]
        [check] = [c for c in assessment.checks if c.id == "ui.thread-matches-records"]
        assert check.failed and check.detail.startswith("no evidence: ")


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["regrade", "no-such-folder"], "no-such-folder: no such folder"),
        (["regrade", "."], ": holds no attempt"),
    ],
)
def test_a_path_with_nothing_to_regrade_is_one_line(
    args: list[str], says: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(args) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err
