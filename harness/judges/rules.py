"""The built-in ``rules`` judge: each criterion's deterministic fallback rule, through the same door as a model.

It is the keyword matcher the stories used before judges, kept so a suite
can be judged with no model at all. A criterion names its fallback as
``module:function`` (the decline stories': ``harness.decisions.contract:explains_decline``),
a function from the agent's text to (ok, what is missing); the judge only
calls it. A criterion without one is inconclusive here, never a pass. The name
is resolved when judging, so the judges' package depends on no story family.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from pkgutil import resolve_name
from typing import cast

from harness.judges.models import Finding, JudgeRequest, JudgeResult, JudgeStatus

Rule = Callable[[str], tuple[bool, str]]


def fallback_rule(name: str | None) -> Rule | None:
    """The function a criterion names as its fallback, or None when it names none."""
    return cast(Rule, resolve_name(name)) if name else None


class RulesJudge:
    """Deterministic rules (the keyword fallbacks): free, instant, and only as good as their words."""

    name = "rules"
    version = "1"
    description = "the deterministic fallback rule of each criterion (keyword matchers); inconclusive where none"

    def judge(self, request: JudgeRequest, package: Path) -> JudgeResult:
        def result(status: JudgeStatus, reason: str, **more: object) -> JudgeResult:
            return JudgeResult.model_validate(
                {"judge": self.name, "judge_version": self.version, "criterion_id": request.criterion_id}
                | {"status": status, "reason": reason, **more}
            )

        rule = fallback_rule(request.fallback)
        if rule is None:
            return result(JudgeStatus.INCONCLUSIVE, f"no rule decides {request.criterion_id}; a model judge can")
        texts = request.agent_texts()
        if request.missing or not texts:
            gaps = list(request.missing) or ["no agent text in the evidence"]
            return result(JudgeStatus.INCONCLUSIVE, "the evidence is missing", evidence_gaps=gaps)
        ok, missing = rule("\n".join(t.text for t in texts))
        cited = sorted({t.path for t in texts})
        reason = "the reply names the decision and says the work was not done" if ok else missing
        return result(
            JudgeStatus.PASSED if ok else JudgeStatus.FAILED, reason, findings=[Finding(text=reason, evidence=cited)]
        )


JUDGE = RulesJudge()
