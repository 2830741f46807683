"""Why an attempt did not pass, in one line, and where its evidence is.

The terminal and the summary say what the report says: for a failure, the
first failed check with its own detail (not only its id), and the file the
check cites as its evidence; for any other ending, the recorded reason. One
place, so the progress line, the run's summary and ``harness summary`` never
disagree about why.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from harness.core.records import AttemptRecord
from harness.core.verdicts import Verdict

WHY_WIDTH = 160
"""A reason longer than this is cut (with an ellipsis): the whole of it is in attempt.json and the report."""
HARNESS_ERROR_LOG = "logs/harness-error.txt"


class Explanation(BaseModel):
    """What a person reads under a cell's verdict: why (empty for a pass) and the path to look at."""

    why: str
    evidence: Path


def _cut(text: str, width: int = WHY_WIDTH) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def explain(record: AttemptRecord, package: Path) -> Explanation:
    """The first failed check's id and detail and its first evidence file; else the reason and the package.

    An infrastructure failure points at the harness's error log when it wrote one.
    """
    failed = [check for check in record.checks if check.failed]
    if record.verdict is Verdict.FAILED and failed and not record.interrupted:
        first = failed[0]
        more = f" (+{len(failed) - 1} more failed check(s))" if len(failed) > 1 else ""
        detail = f"{first.id}: {first.detail}" if first.detail else first.id
        cited = next((package / path for path in first.evidence if (package / path).exists()), package)
        return Explanation(why=_cut(detail) + more, evidence=cited)
    if record.verdict is Verdict.PASSED and not record.interrupted:
        return Explanation(why="", evidence=package)
    if record.verdict is Verdict.PASSED_WITH_RECOVERY and not record.interrupted:
        return Explanation(why=_cut(record.reason), evidence=package)
    log = package / HARNESS_ERROR_LOG
    where = log if record.verdict is Verdict.INFRASTRUCTURE_FAILED and log.is_file() else package
    return Explanation(why=_cut(record.reason), evidence=where)
