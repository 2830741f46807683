"""The calibration record: proof that the oracle and stories caught every bad delivery for one harness digest.

``python -m calibration`` writes it; ``harness promote`` reads it. It is keyed
by the harness digest (the sources that decide grades), so a change to the
harness, a story or the oracle needs a new calibration before promotion.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from harness.core.records import utc_now

CALIBRATION_FOLDER = "calibration"
CALIBRATION_SCHEMA_VERSION = 1


class CalibrationRecord(BaseModel):
    schema_version: int = CALIBRATION_SCHEMA_VERSION
    harness_digest: str
    source_revision: str
    source_dirty: bool
    at: datetime = Field(default_factory=utc_now)
    suites: list[str] = Field(description="calibration suites that ran")
    complete: bool = Field(description="every registered calibration suite ran")
    passed: bool
    rows: int
    wrong: list[str] = Field(default_factory=list, description="one line per row that was not as expected")


def calibration_path(results: Path, digest: str) -> Path:
    return results / CALIBRATION_FOLDER / f"{digest}.json"


def kept_evidence_path(results: Path, started: datetime) -> Path:
    """Where one calibration run keeps the evidence of its wrong rows: a folder per run, none overwritten."""
    return results / CALIBRATION_FOLDER / "evidence" / started.strftime("%Y%m%dT%H%M%SZ")


def write_calibration(results: Path, record: CalibrationRecord) -> Path:
    path = calibration_path(results, record.harness_digest)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(record.model_dump_json(indent=2) + "\n")
    return path


def read_calibration(results: Path, digest: str) -> CalibrationRecord | None | str:
    """The record for a digest; None when absent; a message string when present but unreadable."""
    path = calibration_path(results, digest)
    if not path.is_file():
        return None
    try:
        return CalibrationRecord.model_validate_json(path.read_text())
    except (ValidationError, ValueError, OSError) as error:
        return f"{path} is unreadable: {str(error).splitlines()[0]}"
