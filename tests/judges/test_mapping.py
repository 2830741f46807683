"""From judgements to what readers see: a failed check, inconclusive named, a broken instrument apart, and
"not judged" a reason promotion refuses."""

from __future__ import annotations

from pathlib import Path

from harness.core import registry
from harness.core.criteria import decline_explanation
from harness.judges.mapping import CriterionState, criteria_states
from harness.judges.models import JudgeResult, JudgeStatus
from harness.judges.requests import build_request
from harness.judges.store import Judgement, read_judgements, write_judgement
from harness.results.packages import read_package
from harness.results.promotion import unjudged_reasons
from tests.judges.packages import decline_package

CRITERION = decline_explanation("it")


def judge_as(package: Path, status: JudgeStatus, judge: str = "model") -> None:
    request = build_request(package, "a", "service-decline", CRITERION)
    result = JudgeResult(judge=judge, judge_version="1", criterion_id=CRITERION.id, status=status, reason="because")
    write_judgement(package, Judgement(request=request, result=result))


def test_failed_is_a_failed_judge_check_shown_as_an_assessment(tmp_path: Path) -> None:
    package = decline_package(tmp_path, "I went ahead anyway.")
    judge_as(package, JudgeStatus.FAILED)
    (state,) = criteria_states(package, (CRITERION,))
    check = state.check()
    assert check is not None and check.failed and check.id == "judge.explanation-after-decline"
    assert "assessment" in check.detail and "judgements/model/explanation-after-decline/0001.json" in check.evidence


def test_inconclusive_and_a_broken_instrument_make_no_check(tmp_path: Path) -> None:
    for number, (status, state) in enumerate(
        [(JudgeStatus.INCONCLUSIVE, CriterionState.INCONCLUSIVE), (JudgeStatus.ERROR, CriterionState.INSTRUMENT_FAILED)]
    ):
        package = decline_package(tmp_path, "text", attempt=str(number))
        judge_as(package, status)
        (found,) = criteria_states(package, (CRITERION,))
        assert found.state is state and found.check() is None


def test_nothing_judged_reads_not_judged(tmp_path: Path) -> None:
    (state,) = criteria_states(decline_package(tmp_path, "text"), (CRITERION,))
    assert state.state is CriterionState.NOT_JUDGED and state.check() is None


def test_a_new_judgement_never_overwrites_and_the_newest_counts(tmp_path: Path) -> None:
    package = decline_package(tmp_path, "text")
    judge_as(package, JudgeStatus.ERROR)
    judge_as(package, JudgeStatus.PASSED)
    kept = read_judgements(package)[CRITERION.id]["model"]
    assert [k.result.status for k in kept] == [JudgeStatus.ERROR, JudgeStatus.PASSED]
    assert criteria_states(package, (CRITERION,))[0].state is CriterionState.PASSED


def test_promotion_names_criteria_never_judged_and_broken_judges(tmp_path: Path) -> None:
    cases = {case.name: case for case in registry.cases()}
    unjudged = decline_package(tmp_path, "text", attempt="1")
    broken = decline_package(tmp_path, "text", attempt="2")
    judged = decline_package(tmp_path, "text", attempt="3")
    judge_as(broken, JudgeStatus.ERROR)
    judge_as(judged, JudgeStatus.PASSED)
    loaded = [read_package(tmp_path, package) for package in (unjudged, broken, judged)]
    reasons = unjudged_reasons(loaded, cases)
    by_state = {reason.split("(")[1].split(")")[0]: reason for reason in reasons}
    assert set(by_state) == {"not judged", "instrument failed"}
    assert by_state["not judged"].endswith("/1 (harness judge CAMPAIGN --judge NAME)")
    assert by_state["instrument failed"].endswith("/2 (harness judge CAMPAIGN --judge NAME)")
    assert unjudged_reasons(loaded[2:], cases) == []


def test_a_jury_decides_by_majority_leaves_errors_out_and_calls_a_tie_inconclusive(tmp_path: Path) -> None:
    def state(*statuses: JudgeStatus, attempt: str) -> CriterionState:
        package = decline_package(tmp_path, "text", attempt=attempt)
        for number, status in enumerate(statuses):
            judge_as(package, status, judge=f"j{number}")
        return criteria_states(package, (CRITERION,))[0].state

    assert state(JudgeStatus.FAILED, JudgeStatus.FAILED, JudgeStatus.PASSED, attempt="1") is CriterionState.FAILED
    assert state(JudgeStatus.PASSED, JudgeStatus.ERROR, attempt="2") is CriterionState.PASSED
    assert state(JudgeStatus.PASSED, JudgeStatus.FAILED, attempt="3") is CriterionState.INCONCLUSIVE
    assert state(JudgeStatus.ERROR, JudgeStatus.ERROR, attempt="4") is CriterionState.INSTRUMENT_FAILED
