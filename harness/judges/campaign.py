"""Judging a saved campaign: every package's criteria, by each named judge, a new judgement beside each.

Nothing runs but the judges: the packages are read as saved. Replies come
from the cache when the whole request was judged before (free and the same);
a judge's model spend is metered apart from the agents' and capped.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from harness.core import registry
from harness.core.records import AttemptRecord
from harness.judges.door import load_judge
from harness.judges.model import JudgeBudgetReached
from harness.judges.requests import build_request
from harness.judges.settings import JudgeSettings
from harness.judges.store import Judgement, write_judgement

CACHE_FOLDER = ".judge-cache"


class JudgeRun(BaseModel):
    """What one ``harness judge`` did, by the numbers."""

    judgements: list[str] = []  # paths written
    statuses: dict[str, int] = {}
    model_calls: int = 0
    cache_hits: int = 0
    spent_cents: float = 0.0
    scripted_cents: float = 0.0
    not_judged: list[str] = []  # criteria left unjudged (the budget), re-judgeable

    def line(self) -> str:
        counts = ", ".join(f"{n} {s}" for s, n in sorted(self.statuses.items())) or "nothing"
        spend = f"judge spend {self.spent_cents:.4f} cents" + (
            f" (+{self.scripted_cents:.4f} scripted, not spent)" if self.scripted_cents else ""
        )
        return (
            f"{len(self.judgements)} judgement(s): {counts}; {self.model_calls} model call(s), {self.cache_hits} from"
            f" the cache; {spend}" + (f"; {len(self.not_judged)} not judged (budget)" if self.not_judged else "")
        )


def _agent_model(record: AttemptRecord) -> str | None:
    """The model of the agent under test, as its profile pins it (None: a cell no longer in the catalog)."""
    cell = next((c for c in registry.catalog().cells() if c.execution_id == record.cell.execution_id), None)
    return cell.profile.model if cell else None


def _packages(campaign: Path) -> list[Path]:
    return sorted(p.parent for p in campaign.glob("*/*/attempt.json"))


def judge_campaign(campaign: Path, judges: list[str], settings: JudgeSettings) -> JudgeRun:
    """Judge every package of ``campaign`` (a folder) with each of ``judges``."""
    return judge_packages(_packages(campaign), judges, settings)


def judge_packages(packages: list[Path], judges: list[str], settings: JudgeSettings) -> JudgeRun:
    """Judge each package folder (``<results>/<campaign>/<cell>/<attempt>``) with each of ``judges``; the reply
    cache defaults to ``<results>/.judge-cache`` of the first."""
    if not settings.cache and packages:
        settings = settings.model_copy(update={"cache": packages[0].parents[2] / CACHE_FOLDER})
    cases = {case.name: case for case in registry.cases()}
    run = JudgeRun()
    built = {name: load_judge(name, settings) for name in judges}
    for package in packages:
        record = AttemptRecord.model_validate_json((package / "attempt.json").read_bytes())
        case = cases.get(record.cell.case)
        if case is None or not case.criteria:
            continue
        attempt = "/".join(package.parts[-3:])
        for criterion in case.criteria:
            request = build_request(package, attempt, case.name, criterion, agent_model=_agent_model(record))
            for name, judge in built.items():
                try:
                    result = judge.judge(request, package)
                except JudgeBudgetReached:
                    run.not_judged.append(f"{attempt} {criterion.id} by {name}")
                    continue
                path = write_judgement(package, Judgement(request=request, result=result))
                run.judgements.append(path.as_posix())
                run.statuses[result.status.value] = run.statuses.get(result.status.value, 0) + 1
    for judge in built.values():
        run.model_calls += getattr(judge, "model_calls_made", 0)
        run.cache_hits += getattr(judge, "cache_hits", 0)
        run.spent_cents += getattr(judge, "spent_cents", 0.0)
        run.scripted_cents += getattr(judge, "scripted_cents", 0.0)
    return run
