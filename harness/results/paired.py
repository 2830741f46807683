"""A cell's recorded pairs: which pairs moved from pass to fail or back, and which could not be compared.

Only attempts that carry the same pair id are a pair: they were played
back to back with the same inputs, once per variant. Nothing is paired by
position or time, so reading the attempts in another order changes nothing.
A pair whose either half is excluded (an infrastructure failure, a missing
half) is counted under that reason and enters no transition.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from pydantic import BaseModel, Field

from harness.core.records import AttemptRecord
from harness.results.counting import FAIL, PASS, outcome
from harness.results.statistics import direction

MISSING_HALF = "missing_half"


class PairCounts(BaseModel):
    pairs: int = Field(description="pairs whose both halves passed or failed: the ones compared")
    both_passed: int
    pass_to_fail: int = Field(description="passed on the base variant, failed on the candidate")
    fail_to_pass: int
    both_failed: int
    excluded: dict[str, int] = Field(default_factory=dict, description="reason -> pairs left out")
    rule_holds: bool = Field(description="seed 003's rule: at least two transitions one way and none the other")


def pair_counts(base: Sequence[AttemptRecord | None], candidate: Sequence[AttemptRecord | None]) -> PairCounts:
    """Match the two variants' newest attempts per slot by pair id, then count what each pair did."""
    halves: dict[str, list[str | None]] = {}
    for side, ends in enumerate((base, candidate)):
        for record in ends:
            if record is not None and record.pair is not None:
                halves.setdefault(record.pair.id, [None, None])[side] = outcome(record)
    moves: Counter[tuple[str, str]] = Counter()
    excluded: Counter[str] = Counter()
    for before, after in halves.values():
        if before is None or after is None:
            excluded[MISSING_HALF] += 1
        elif {before, after} <= {PASS, FAIL}:
            moves[(before, after)] += 1
        else:
            excluded[next(reason for reason in (before, after) if reason not in (PASS, FAIL))] += 1
    worse, better = moves[(PASS, FAIL)], moves[(FAIL, PASS)]
    return PairCounts(
        pairs=sum(moves.values()),
        both_passed=moves[(PASS, PASS)],
        pass_to_fail=worse,
        fail_to_pass=better,
        both_failed=moves[(FAIL, FAIL)],
        excluded=dict(sorted(excluded.items())),
        rule_holds=direction(worse, better) in ("regressed", "improved"),
    )
