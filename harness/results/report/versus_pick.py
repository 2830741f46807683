"""Which two attempts a changed cell of a comparison is shown by: one from each side, the pair that changed."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from harness.results.compare import CellComparison
from harness.results.packages import LoadedAttempt


def _started(attempt: LoadedAttempt) -> datetime:
    return attempt.record.timing.started_at if attempt.record else datetime.min.replace(tzinfo=UTC)


def _latest(attempts: Sequence[LoadedAttempt], verdict: str | None) -> LoadedAttempt | None:
    found = [a for a in attempts if a.record is not None and (verdict is None or a.verdict == verdict)]
    return max(found, key=_started, default=None)


def versus_pair(
    attempts: Sequence[LoadedAttempt], base: str, candidate: str, cell: CellComparison
) -> tuple[LoadedAttempt, LoadedAttempt] | None:
    """For a cell with a transition: the latest attempt of the side it left and of the side it reached, with the
    verdicts of the transition (passed then failed for a regression); None for a cell that did not change."""
    if not (cell.pass_to_fail or cell.fail_to_pass):
        return None
    of = {
        side: [a for a in attempts if a.campaign == side and a.execution_id == cell.execution_id]
        for side in (base, candidate)
    }
    before, after = ("passed", "failed") if cell.pass_to_fail >= cell.fail_to_pass else ("failed", "passed")
    a = _latest(of[base], before) or _latest(of[base], None)
    b = _latest(of[candidate], after) or _latest(of[candidate], None)
    return (a, b) if a and b else None
