"""Which two attempts a changed cell of a comparison is shown by: one from each side, the pair that changed."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from harness.results.compare import CellComparison, Comparison
from harness.results.packages import LoadedAttempt

PASSING = frozenset({"passed", "passed_with_recovery"})


def _started(attempt: LoadedAttempt) -> datetime:
    return attempt.record.timing.started_at if attempt.record else datetime.min.replace(tzinfo=UTC)


def _latest(attempts: Sequence[LoadedAttempt], passing: bool | None) -> LoadedAttempt | None:
    found = [a for a in attempts if a.record is not None and (passing is None or (a.verdict in PASSING) == passing)]
    return max(found, key=_started, default=None)


def changed(cell: CellComparison) -> bool:
    """Both sides have the cell and it did not do the same on both: a pair moved, or the pass rates differ."""
    if cell.base is None or cell.candidate is None:
        return False
    if cell.pairs is not None:
        return bool(cell.pairs.pass_to_fail or cell.pairs.fail_to_pass)
    return cell.base.rate != cell.candidate.rate


def _sides(
    attempts: Sequence[LoadedAttempt], comparison: Comparison, cell: CellComparison
) -> tuple[list[LoadedAttempt], list[LoadedAttempt]]:
    """The cell's attempts on each side: two campaigns, or a paired campaign's first and second variants."""
    if comparison.design == "paired":
        mine = [a for a in attempts if a.campaign == comparison.base.campaign and a.execution_id == cell.execution_id]
        paired = [a for a in mine if a.record is not None and a.record.pair is not None]
        return (
            [a for a in paired if a.record and a.record.pair and a.record.pair.first],
            [a for a in paired if a.record and a.record.pair and not a.record.pair.first],
        )
    base = [a for a in attempts if a.campaign == comparison.base.campaign and a.execution_id == cell.execution_id]
    candidate = [a for a in attempts if a.campaign == cell.candidate_campaign and a.execution_id == cell.execution_id]
    return base, candidate


def versus_pair(
    attempts: Sequence[LoadedAttempt], comparison: Comparison, cell: CellComparison
) -> tuple[LoadedAttempt, LoadedAttempt] | None:
    """For a changed cell: the latest attempt of the side it left and of the side it reached, with the verdicts of
    the change (a pass then a failure for a cell that got worse); None for a cell that did not change."""
    if not changed(cell) or cell.base is None or cell.candidate is None:
        return None
    base, candidate = _sides(attempts, comparison, cell)
    worse = (cell.candidate.rate or 0.0) < (cell.base.rate or 0.0)
    a = _latest(base, worse) or _latest(base, None)
    b = _latest(candidate, not worse) or _latest(candidate, None)
    return (a, b) if a and b else None
