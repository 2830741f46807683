"""The checks a package stands on now: its newest assessment's (`harness regrade`), else the record's own.

A regrade writes a new assessment beside the original record and never over
it, so every view that places checks reads them here: a regraded package then
shows what it was last judged, and says by which file.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from harness.core.records import AttemptRecord, CheckRecord
from harness.judging.regrade import ASSESSMENTS_FOLDER, newest_assessment


class CurrentChecks(BaseModel):
    source: str  # the package file the checks were read from
    checks: list[CheckRecord]


def current_checks(folder: Path, record: AttemptRecord) -> CurrentChecks:
    """The newest readable assessment's checks, else attempt.json's."""
    if newest := newest_assessment(folder):
        name, assessment = newest
        return CurrentChecks(source=f"{ASSESSMENTS_FOLDER}/{name}", checks=list(assessment.checks))
    return CurrentChecks(source="attempt.json", checks=list(record.checks))
