"""Record a finished calibration so `harness promote` can require it for this harness digest."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from calibration.runner import Row
from harness.evidence.provenance import source_dirty, source_revision
from harness.results.calibration_record import CalibrationRecord, write_calibration


def record_calibration(
    rows: Sequence[Row],
    digest: str,
    suites: Sequence[str] = (),
    complete: bool = True,
    results: Path = Path("results"),
) -> Path:
    """Write results/calibration/<digest>.json: passed only when there were rows and none was wrong."""
    wrong = [r.wrong_line() for r in rows if not r.ok]
    record = CalibrationRecord(
        harness_digest=digest,
        source_revision=source_revision(),
        source_dirty=source_dirty(),
        suites=list(suites),
        complete=complete,
        passed=bool(rows) and not wrong,
        rows=len(rows),
        wrong=wrong,
    )
    return write_calibration(results, record)
