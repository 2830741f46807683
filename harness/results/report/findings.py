"""The cell's known finding beside an attempt: whether the attempt's failure is it, or a new one on its checks."""

from __future__ import annotations

from pydantic import BaseModel

from harness.core.catalog import KnownFinding
from harness.core.outcomes import is_known_finding
from harness.core.records import AttemptRecord, CheckRecord
from harness.core.signatures import FailureSignature
from harness.results.packages import catalog_cells


class FindingView(BaseModel):
    """What the attempt page shows of a known finding: the finding, and each failure on its checks that is not it."""

    what: str
    reproduction: str
    checks: tuple[str, ...]
    signatures: tuple[FailureSignature, ...]
    explained: bool
    new: list[CheckRecord]


def finding_view(record: AttemptRecord | None) -> FindingView | None:
    """The known finding the catalog declares for the record's cell (None: none, or no record)."""
    cell = catalog_cells().get(record.cell.execution_id) if record else None
    finding: KnownFinding | None = cell.known_finding if cell else None
    if record is None or finding is None:
        return None
    return FindingView(
        what=finding.what,
        reproduction=finding.reproduction,
        checks=finding.checks,
        signatures=finding.signatures,
        explained=is_known_finding(record, finding),
        new=finding.unmatched([check for check in record.checks if check.failed]),
    )
