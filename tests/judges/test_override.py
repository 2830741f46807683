"""`harness review --criterion --set` sets a judged criterion by hand, beside the judges' answers, with history."""

from __future__ import annotations

from pathlib import Path

from harness.cli import main
from harness.judges.mapping import CriterionState, criteria_states
from harness.judges.store import read_judgements
from tests.judges.packages import decline_package
from tests.judges.test_mapping import CRITERION, JudgeStatus, judge_as


def review(package: Path, status: str, note: str) -> int:
    return main(
        ["review", str(package), "--criterion", CRITERION.id, "--set", status, "--note", note, "--reviewer", "ana"]
    )


def test_a_reviewer_overrides_the_judge_and_both_are_kept(tmp_path: Path) -> None:
    package = decline_package(tmp_path, "I could not, you declined.")
    judge_as(package, JudgeStatus.FAILED)
    assert review(package, "passed", "the judge misread a negation") == 0
    (state,) = criteria_states(package, (CRITERION,))
    assert state.state is CriterionState.PASSED and state.judge == "review (ana)"
    assert review(package, "inconclusive", "on second thought, ask the team") == 0
    kept = read_judgements(package)[CRITERION.id]
    assert [k.result.status for k in kept["review"]] == [JudgeStatus.PASSED, JudgeStatus.INCONCLUSIVE]
    assert [k.result.status for k in kept["model"]] == [JudgeStatus.FAILED]
    assert criteria_states(package, (CRITERION,))[0].state is CriterionState.INCONCLUSIVE


def test_an_unknown_criterion_or_a_half_command_is_refused(tmp_path: Path) -> None:
    package = decline_package(tmp_path, "text")
    assert main(["review", str(package), "--criterion", "nope", "--set", "passed", "--note", "x"]) == 2
    assert main(["review", str(package), "--criterion", CRITERION.id, "--note", "x"]) == 2
    assert not (package / "judgements").exists()
