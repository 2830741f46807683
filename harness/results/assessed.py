"""The one reader of a package's newest assessment: what the package stands on now.

A regrade (`harness regrade`) writes a new assessment beside the original
record and never over it, so every reader that places checks or counts
verdicts takes them here: a regraded package then shows what it was last
judged, and says by which file. Without a readable assessment it stands on
attempt.json's own checks and verdict.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from harness.core.records import AttemptRecord, CheckRecord
from harness.judging.regrade import ASSESSMENTS_FOLDER, newest_assessment

ATTEMPT_FILE = "attempt.json"


class AssessmentNote(BaseModel):
    """The assessment a reader took the checks and verdict from, and what it changed against attempt.json."""

    file: str
    rules_digest: str
    verdict_before: str
    changed: list[str]


class CurrentChecks(BaseModel):
    source: str  # the package file the checks were read from
    checks: list[CheckRecord]


def as_assessed(folder: Path, record: AttemptRecord) -> tuple[AttemptRecord, AssessmentNote | None]:
    """``record`` with the checks, verdict and reason of the newest readable assessment beside it, and which one
    (None, and the record as it is, when the package was never regraded)."""
    newest = newest_assessment(folder)
    if newest is None:
        return record, None
    name, assessment = newest
    now = record.model_copy(
        update={"checks": assessment.checks, "verdict": assessment.verdict, "reason": assessment.reason}
    )
    note = AssessmentNote(
        file=f"{ASSESSMENTS_FOLDER}/{name}",
        rules_digest=assessment.rules_digest,
        verdict_before=assessment.verdict_before.value,
        changed=sorted({change.id for change in assessment.changed}),
    )
    return now, note


def current_checks(folder: Path, record: AttemptRecord) -> CurrentChecks:
    """The checks the package stands on now, and the file they were read from."""
    now, note = as_assessed(folder, record)
    return CurrentChecks(source=note.file if note else ATTEMPT_FILE, checks=list(now.checks))
