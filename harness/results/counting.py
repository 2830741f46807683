"""How one attempt counts in a comparison: a pass, a failure, or a named exclusion; and one side's counts of a cell.

Every attempt on a side lands in exactly one place, so nothing disappears
between the folder and the figure: a silently dropped failure reads as an
improvement. Excluded are the endings that say nothing about the product or
agent (the machine broke, no credentials, a Ctrl-C, an unreadable package)
and an ``unexercised`` attempt whose checks all held; an ``unexercised``
attempt that failed a check did show something wrong, so it counts as a
failure.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from pydantic import BaseModel, Field

from harness.core.records import AttemptRecord
from harness.results.epochs import INTERRUPTED
from harness.results.statistics import Interval, wilson

PASS = "pass"
FAIL = "fail"
PASSING = frozenset({"passed"})
PASSING_APART = frozenset({"passed_with_recovery"})
"""Passes shown apart from clean ones: passed, but only after the harness recovered its own infrastructure."""
BROKEN = "broken"


def outcome(record: AttemptRecord | None) -> str:
    """``pass``, ``fail``, or the name of the exclusion the attempt falls under."""
    if record is None:
        return BROKEN
    if record.interrupted:
        return INTERRUPTED
    verdict = record.verdict.value
    if verdict in PASSING | PASSING_APART:
        return PASS
    if verdict == "failed" or (verdict == "unexercised" and record.failed_check_ids()):
        return FAIL
    return verdict


class SideCounts(BaseModel):
    """One side of one cell: the decisive attempts (every one counted) and the excluded ones by reason."""

    passed: int = Field(description="passes, those after a recovery included")
    passed_with_recovery: int = Field(0, description="of the passes, those that needed the harness to recover")
    failed: int = 0
    n: int = Field(description="passed + failed: the denominator")
    rate: float | None = Field(description="passed / n; None when no attempt was decisive")
    interval: Interval = Field(description="Wilson 95 % interval of the rate")
    excluded: dict[str, int] = Field(
        default_factory=dict, description="reason -> attempts left out of n (infrastructure_failed, skipped, ...)"
    )


def side_counts(ends: Iterable[AttemptRecord | None]) -> SideCounts:
    """Count a cell's newest attempt per slot (``None`` for a package without a readable record)."""
    outcomes: Counter[str] = Counter()
    recovered = 0
    for record in ends:
        outcomes[outcome(record)] += 1
        recovered += bool(record and not record.interrupted and record.verdict.value in PASSING_APART)
    passed, failed = outcomes.pop(PASS, 0), outcomes.pop(FAIL, 0)
    n = passed + failed
    return SideCounts(
        passed=passed,
        passed_with_recovery=recovered,
        failed=failed,
        n=n,
        rate=passed / n if n else None,
        interval=wilson(passed, n),
        excluded=dict(sorted(outcomes.items())),
    )
