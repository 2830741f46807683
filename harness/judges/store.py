"""Judgements kept beside a package: ``judgements/<judge>/<criterion>/<n>.json``, numbered, never overwritten.

Each file holds the request judged and the judge's result, so it can be
read, verified against the package's bytes and judged again without running
anything. The newest per judge and criterion is the one that counts; every
older one stays. ``read_judgements`` is the one reader the summary, report
and promotion use (and the assessments of ``harness regrade`` can join on).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from pydantic import BaseModel

from harness.core.numbered import add_numbered, numbers
from harness.judges.models import JudgeRequest, JudgeResult

FOLDER = "judgements"
NUMBERED = re.compile(r"^(\d{4,})\.json$")


class Judgement(BaseModel):
    """One judge's answer on one criterion of one attempt, with the request it answered."""

    request: JudgeRequest
    result: JudgeResult
    path: str = ""  # package-relative, filled in when read

    def to_json(self) -> str:
        data = {
            "request": self.request.model_dump(mode="json", by_alias=True),
            "result": self.result.model_dump(mode="json", by_alias=True),
        }
        return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_judgement(package: Path, judgement: Judgement) -> Path:
    """A new numbered file for this judge and criterion; an existing one is never touched."""
    folder = package / FOLDER / judgement.result.judge / judgement.result.criterion_id
    return add_numbered(folder, NUMBERED, lambda number: f"{number:04d}.json", judgement.to_json())


def read_judgements(package: Path) -> dict[str, dict[str, list[Judgement]]]:
    """Every judgement of a package: criterion -> judge -> judgements, oldest first (the last is the newest)."""
    found: dict[str, dict[str, list[Judgement]]] = {}
    root = package / FOLDER
    if not root.is_dir():
        return found
    for judge in sorted(p for p in root.iterdir() if p.is_dir()):
        for criterion in sorted(p for p in judge.iterdir() if p.is_dir()):
            for number in numbers(criterion, NUMBERED):
                path = criterion / f"{number:04d}.json"
                raw = json.loads(path.read_bytes())
                kept = Judgement.model_validate(raw | {"path": path.relative_to(package).as_posix()})
                found.setdefault(criterion.name, {}).setdefault(judge.name, []).append(kept)
    return found


def newest(package: Path) -> dict[str, dict[str, Judgement]]:
    """The newest judgement per criterion and judge."""
    return {c: {j: kept[-1] for j, kept in judges.items()} for c, judges in read_judgements(package).items()}
