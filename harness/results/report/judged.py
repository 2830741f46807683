"""What an attempt page shows of its judged criteria: the jury's state, then each judge's word and evidence.

Kept apart from the rule checks on the page: a judge's answer is an
assessment, shown with its model and cost so a reader weighs it as one.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from harness.core import registry
from harness.judges.mapping import CriterionState, criteria_states
from harness.judges.store import newest


class JudgeRow(BaseModel):
    judge: str
    status: str
    reason: str
    model: str | None = None
    cost_cents: float | None = None
    scripted: bool = False
    same_model_as_agent: bool = False
    evidence: list[str] = []
    judgement: str = ""


class CriterionView(BaseModel):
    criterion: str
    text: str
    state: str
    reason: str
    judges: list[JudgeRow] = []


def judged_views(case: str, package: Path) -> list[CriterionView]:
    """One view per criterion the attempt's case declares (none for a case without criteria)."""
    found = next((c for c in registry.cases() if c.name == case), None)
    if found is None or not found.criteria:
        return []
    kept = newest(package)
    views = []
    for criterion, state in zip(found.criteria, criteria_states(package, found.criteria), strict=True):
        rows = [
            JudgeRow(
                judge=name + (f" ({j.result.reviewer})" if j.result.reviewer else ""),
                status=j.result.status.value,
                reason=j.result.reason,
                model=j.result.judge_model,
                cost_cents=sum(c.cost_cents or 0.0 for c in j.result.model_calls) if j.result.model_calls else None,
                scripted=any(c.scripted for c in j.result.model_calls),
                same_model_as_agent=j.result.same_model_as_agent,
                evidence=sorted(
                    {p for f in j.result.findings for p in f.evidence} or {e.path for e in j.request.evidence}
                ),
                judgement=j.path,
            )
            for name, j in sorted(kept.get(criterion.id, {}).items())
        ]
        label = state.state.value.replace("_", " ")
        views.append(
            CriterionView(
                criterion=criterion.id,
                text=criterion.text,
                state=label,
                reason=state.reason if state.state is not CriterionState.NOT_JUDGED else "no judge was asked",
                judges=rows,
            )
        )
    return views
