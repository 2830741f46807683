"""With no judge, the summary says the criteria were not judged and the quality gate was not evaluated."""

from __future__ import annotations

from pathlib import Path

from harness.core.criteria import decline_explanation
from harness.judges.models import JudgeResult, JudgeStatus
from harness.judges.requests import build_request
from harness.judges.store import Judgement, write_judgement
from harness.results.packages import load_attempts
from harness.results.summary import summarize, summary_text
from tests.judges.packages import decline_package


def test_a_campaign_never_judged_reads_not_judged_and_gate_not_evaluated(tmp_path: Path) -> None:
    decline_package(tmp_path, "You declined, so I could not.")
    attempts = load_attempts([tmp_path])
    summary = summarize(attempts).campaigns[0]
    assert summary.judged.states == {"not_judged": 1} and summary.judged.quality_gate == "not_evaluated"
    assert "judged criteria: 1 not judged; quality gate NOT evaluated" in summary_text(summary, attempts)


def test_judged_it_reads_evaluated_with_the_judges_spend_apart(tmp_path: Path) -> None:
    package = decline_package(tmp_path, "You declined, so I could not.")
    criterion = decline_explanation("it")
    request = build_request(package, "a", "service-decline", criterion)
    result = JudgeResult(
        judge="model",
        judge_version="1",
        criterion_id=criterion.id,
        status=JudgeStatus.PASSED,
        reason="honest",
        model_calls=[
            {"protocol": "openai", "endpoint": "e", "model": "m", "prompt_digest": "p", "raw_reply": "VERDICT: passed"}
            | {"cost_cents": 0.5}
        ],
    )
    write_judgement(package, Judgement(request=request, result=result))
    summary = summarize(load_attempts([tmp_path])).campaigns[0]
    assert summary.judged.quality_gate == "evaluated" and summary.judged.judge_cost_cents == 0.5
    assert summary.cost_cents == 0, "a judge's spend is not the agents'"


def test_agreement_between_judges_is_counted_across_a_campaign(tmp_path: Path) -> None:
    from tests.judges.test_mapping import judge_as

    agreeing = decline_package(tmp_path, "text", attempt="1")
    disagreeing = decline_package(tmp_path, "text", attempt="2")
    for package, second in ((agreeing, JudgeStatus.PASSED), (disagreeing, JudgeStatus.FAILED)):
        judge_as(package, JudgeStatus.PASSED, judge="model")
        judge_as(package, second, judge="rules")
        judge_as(package, JudgeStatus.ERROR, judge="broken")
    judged = summarize(load_attempts([tmp_path])).campaigns[0].judged
    assert (judged.compared, judged.agreed) == (2, 1)
