"""A campaign's judged criteria at a glance: how many of each state, the judges' spend, and the quality gate.

The gate is *evaluated* only when every judged criterion of every attempt was
decided by a judge; one criterion not judged (or whose judge broke) leaves it
*not evaluated*, which a summary says out loud instead of counting as a pass.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from harness.core.criteria import Criterion
from harness.judges.mapping import REVIEW_JUDGE, CriterionState, criteria_states
from harness.judges.models import JudgeStatus
from harness.judges.store import newest

ERROR = JudgeStatus.ERROR


class JudgedOverview(BaseModel):
    states: dict[str, int] = Field(default_factory=dict, description="criterion state -> criteria over attempts")
    quality_gate: Literal["evaluated", "not_evaluated", "no_criteria"] = "no_criteria"
    judge_cost_cents: float = Field(0.0, description="the newest judgements' real model spend, apart from agents'")
    judge_scripted_cents: float = Field(0.0, description="what the replay's scripted judge replies would have cost")
    compared: int = Field(0, description="criteria two or more judges answered (errors left out)")
    agreed: int = Field(0, description="of those, the criteria every answering judge answered alike")

    def line(self) -> str | None:
        if self.quality_gate == "no_criteria":
            return None
        counts = ", ".join(f"{n} {state.replace('_', ' ')}" for state, n in sorted(self.states.items()))
        gate = "evaluated" if self.quality_gate == "evaluated" else "NOT evaluated"
        agreement = f"; judges agreed on {self.agreed} of {self.compared}" if self.compared else ""
        return f"judged criteria: {counts}; quality gate {gate}{agreement}; judge spend {self.judge_cost_cents / 100:.4f} $"


def overview(packages: Iterable[tuple[Path, tuple[Criterion, ...]]]) -> JudgedOverview:
    """Over (package folder, its case's criteria) pairs."""
    states: Counter[str] = Counter()
    spent = scripted = 0.0
    compared = agreed = 0
    for package, criteria in packages:
        if not criteria:
            continue
        states.update(state.state.value for state in criteria_states(package, criteria))
        for judges in newest(package).values():
            answers = [
                k.result.status for name, k in judges.items() if name != REVIEW_JUDGE and k.result.status != ERROR
            ]
            if len(answers) >= 2:
                compared += 1
                agreed += len(set(answers)) == 1
            for kept in judges.values():
                for call in kept.result.model_calls:
                    if call.scripted:
                        scripted += call.cost_cents or 0.0
                    else:
                        spent += call.cost_cents or 0.0
    if not states:
        return JudgedOverview()
    open_ = states[CriterionState.NOT_JUDGED.value] + states[CriterionState.INSTRUMENT_FAILED.value]
    return JudgedOverview(
        states=dict(sorted(states.items())),
        quality_gate="not_evaluated" if open_ else "evaluated",
        judge_cost_cents=round(spent, 6),
        judge_scripted_cents=round(scripted, 6),
        compared=compared,
        agreed=agreed,
    )
