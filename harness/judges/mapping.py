"""From judgements to what a reader sees: a check per criterion, or why there is none.

- passed / failed: a check ``judge.<criterion>``, labelled a judge's assessment
  (a model's opinion is not a validated fact);
- inconclusive: named as such, never a pass and never a failure;
- error (transport, unparseable reply): an instrument failure, re-judgeable,
  never the agent's failure and never in a pass rate;
- no judgement: "not judged", and the quality gate is not evaluated.
"""

from __future__ import annotations

from collections import Counter
from enum import Enum
from pathlib import Path

from pydantic import BaseModel

from harness.core.criteria import Criterion
from harness.core.records import CheckRecord
from harness.judges.models import JudgeStatus
from harness.judges.store import Judgement, newest

REVIEW_JUDGE = "review"  # a person's override (harness.judges.override)


class CriterionState(str, Enum):
    PASSED = "passed"
    FAILED = "failed"
    INCONCLUSIVE = "inconclusive"
    INSTRUMENT_FAILED = "instrument_failed"
    NOT_JUDGED = "not_judged"


class JudgedCriterion(BaseModel):
    """One criterion of one attempt as judged (or not): its state, the judge's word, and its evidence."""

    criterion: str
    state: CriterionState
    judge: str | None = None
    judge_model: str | None = None
    reason: str = ""
    evidence: list[str] = []
    judgement: str | None = None  # package-relative path of the judgement file

    def check(self) -> CheckRecord | None:
        """The check a decided criterion makes; None when it is not decided (inconclusive, broken, not judged)."""
        if self.state not in (CriterionState.PASSED, CriterionState.FAILED):
            return None
        by = f"{self.judge}" + (f" ({self.judge_model})" if self.judge_model else "")
        return CheckRecord(
            id=f"judge.{self.criterion}",
            passed=self.state is CriterionState.PASSED,
            detail=f"a judge's assessment by {by}, not a validated fact: {self.reason}",
            evidence=[*self.evidence, *([self.judgement] if self.judgement else [])],
        )


STATE = {
    JudgeStatus.PASSED: CriterionState.PASSED,
    JudgeStatus.FAILED: CriterionState.FAILED,
    JudgeStatus.INCONCLUSIVE: CriterionState.INCONCLUSIVE,
    JudgeStatus.ERROR: CriterionState.INSTRUMENT_FAILED,
}


def judged(criterion: Criterion, kept: Judgement | None) -> JudgedCriterion:
    if kept is None:
        return JudgedCriterion(criterion=criterion.id, state=CriterionState.NOT_JUDGED, reason="not judged")
    result = kept.result
    cited = sorted({p for f in result.findings for p in f.evidence} or {e.path for e in kept.request.evidence})
    return JudgedCriterion(
        criterion=criterion.id,
        state=STATE[result.status],
        judge=result.judge + (f" ({result.reviewer})" if result.reviewer else ""),
        judge_model=result.judge_model,
        reason=result.reason,
        evidence=cited,
        judgement=kept.path,
    )


def criteria_states(package: Path, criteria: tuple[Criterion, ...], judge: str | None = None) -> list[JudgedCriterion]:
    """Each criterion's state by ``judge`` (None: the jury of every judge's newest judgement)."""
    found = newest(package)
    states = []
    for criterion in criteria:
        by_judge = found.get(criterion.id, {})
        if judge is not None:
            states.append(judged(criterion, by_judge.get(judge)))
        elif REVIEW_JUDGE in by_judge:  # a person's override decides, over any judge
            states.append(judged(criterion, by_judge[REVIEW_JUDGE]))
        else:
            states.append(jury(criterion, list(by_judge.values())))
    return states


def jury(criterion: Criterion, kept: list[Judgement]) -> JudgedCriterion:
    """Several judges, each judged independently: the majority of those that answered decides; a judge that
    errored is left out; a tie is inconclusive; only errors is an instrument failure."""
    if len(kept) <= 1:
        return judged(criterion, kept[0] if kept else None)
    answered = [k for k in kept if k.result.status is not JudgeStatus.ERROR]
    if not answered:
        return judged(criterion, kept[-1])
    votes = Counter(k.result.status for k in answered)
    (top, top_n), *rest = votes.most_common()
    names = ", ".join(f"{k.result.judge} {k.result.status.value}" for k in kept)
    if rest and rest[0][1] == top_n:
        return JudgedCriterion(
            criterion=criterion.id, state=CriterionState.INCONCLUSIVE, judge="jury", reason=f"a tie: {names}"
        )
    winner = next(k for k in answered if k.result.status is top)
    decided = judged(criterion, winner)
    return decided.model_copy(
        update={"judge": "jury", "reason": f"{top_n} of {len(answered)} judges: {names}; {decided.reason}"}
    )
