"""Whether an attempt's verdict is what the catalog expects of its cell: the one rule behind every exit status.

A cell is expected to pass, unless the catalog declares a known finding for
it (a product defect the stories found), in which case it is expected to fail
exactly as declared. pytest's item outcome and `harness run`'s exit status
both come from here, so they can never disagree.
"""

from __future__ import annotations

from harness.core.catalog import KnownFinding
from harness.core.records import AttemptRecord
from harness.core.verdicts import Verdict


def is_known_finding(record: AttemptRecord, finding: KnownFinding | None) -> bool:
    """The record fails exactly as the cell's known finding declares."""
    failures = [check for check in record.checks if check.failed]
    return finding is not None and record.verdict is Verdict.FAILED and finding.explains(failures)


def unexpected(record: AttemptRecord, finding: KnownFinding | None) -> str | None:
    """Why this record must end the run non-zero, or None when it is what the catalog expects."""
    if record.verdict is Verdict.SKIPPED or is_known_finding(record, finding):
        return None
    if finding is None:
        return None if record.verdict.is_pass else f"{record.verdict.value}: {record.reason}"
    if record.verdict.is_pass:
        if finding.intermittent:
            return None
        return (
            "passed, but the catalog declares a known finding for this cell"
            f" ({', '.join(finding.checks)}): remove it if the product was fixed"
        )
    failed = ", ".join(sorted(record.failed_check_ids())) or "no check"
    if new := finding.unmatched([check for check in record.checks if check.failed]):
        looks = "; ".join(f"{check.id}: {check.detail}" for check in new)
        return (
            f"{record.verdict.value} on the known finding's check(s), but not as its signature says (a new"
            f" failure): {looks}"
        )
    return (
        f"{record.verdict.value} on {failed}, not as its known finding declares"
        f" ({', '.join(finding.checks)}): {record.reason}"
    )
