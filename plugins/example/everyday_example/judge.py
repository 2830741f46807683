"""A judge of an outside package, the template a team copies: one class, one method, one entry point.

It decides nothing a person cares about; it shows the shape. It reads only
the request (the excerpts the harness took from the package, each with its
sha256), answers inconclusive when the evidence is missing, and cites the
paths it read. A team's real judge calls its own service here, with its own
credentials from the environment: they never go into the result.
"""

from __future__ import annotations

import re
from pathlib import Path

from harness.judges.models import Finding, JudgeRequest, JudgeResult, JudgeStatus

PLACEHOLDER = re.compile(r"\b(?:TODO|TBD|lorem ipsum)\b", re.IGNORECASE)
MIN_WORDS = 5


class SubstanceJudge:
    """Fails agent text that is a placeholder or a few words; passes anything with substance."""

    name = "example-substance"
    version = "1"
    description = "the example plug-in's judge: agent text must have substance (no placeholder, five words or more)"

    def judge(self, request: JudgeRequest, package: Path) -> JudgeResult:
        texts = request.agent_texts()
        common = {"judge": self.name, "judge_version": self.version, "criterion_id": request.criterion_id}
        if request.missing or not texts:
            gaps = list(request.missing) or ["no agent text"]
            return JudgeResult.model_validate(
                common | {"status": JudgeStatus.INCONCLUSIVE, "reason": "no evidence", "evidence_gaps": gaps}
            )
        text = " ".join(t.text for t in texts)
        problem = (
            f"a placeholder ({PLACEHOLDER.search(text).group(0)!r})"  # type: ignore[union-attr]
            if PLACEHOLDER.search(text)
            else f"only {len(text.split())} word(s)"
            if len(text.split()) < MIN_WORDS
            else None
        )
        cited = sorted({t.path for t in texts})
        return JudgeResult.model_validate(
            common
            | {
                "status": JudgeStatus.FAILED if problem else JudgeStatus.PASSED,
                "reason": problem or "the agent's text has substance",
                "findings": [Finding(text=problem or "substantive text", evidence=cited)],
            }
        )


JUDGE = SubstanceJudge()
