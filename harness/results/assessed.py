"""The checks a package stands on now: its newest assessment's, when one was written beside attempt.json, else the
record's own.

`harness regrade` and a judge write a new assessment beside the original
record and never over it, so every view that shows checks reads them here:
a regraded package then shows what it was last judged, and says by which file.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ValidationError

from harness.core.records import AttemptRecord, CheckRecord

ASSESSMENT_GLOB = "assessment*.json"


class CurrentChecks(BaseModel):
    source: str  # the package file the checks were read from
    checks: list[CheckRecord]


def current_checks(folder: Path, record: AttemptRecord) -> CurrentChecks:
    """The newest readable assessment's checks (by modification time, then name), else attempt.json's."""
    assessments = sorted(folder.glob(ASSESSMENT_GLOB), key=lambda p: (p.stat().st_mtime, p.name), reverse=True)
    for path in assessments:
        try:
            data = json.loads(path.read_bytes())
            checks = [CheckRecord.model_validate(check) for check in data["checks"]]
        except (OSError, ValueError, KeyError, TypeError, ValidationError):
            continue
        return CurrentChecks(source=path.name, checks=checks)
    return CurrentChecks(source="attempt.json", checks=list(record.checks))
