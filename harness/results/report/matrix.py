"""The index's matrix: one row per cell, its latest verdict and every attempt it ever had.

Diagnostics attempts (retired or exploratory cells, attempts marked
diagnostic, calibration personas) get rows of their own in a separate table:
still browsable with their original verdicts, never mixed into the matrix a
suite is promoted from.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from pydantic import BaseModel

from harness.results.packages import LoadedAttempt
from harness.results.summary import VERDICT_ORDER


class CellRow(BaseModel):
    execution_id: str
    attempts: list[LoadedAttempt]  # oldest first

    @property
    def latest(self) -> LoadedAttempt:
        return self.attempts[-1]

    @property
    def diagnostic_reasons(self) -> list[str]:
        return sorted({reason for attempt in self.attempts if (reason := attempt.diagnostic_reason)})


class ModeCounts(BaseModel):
    """Per evidence mode: verdicts of each cell's latest attempt, and of every attempt."""

    mode: str
    latest: dict[str, int]
    all: dict[str, int]


def rows(attempts: Sequence[LoadedAttempt]) -> tuple[list[CellRow], list[CellRow]]:
    """(matrix rows, diagnostics rows), each sorted by execution id."""
    main: dict[str, list[LoadedAttempt]] = defaultdict(list)
    diagnostics: dict[str, list[LoadedAttempt]] = defaultdict(list)
    for attempt in attempts:
        (diagnostics if attempt.diagnostic_reason else main)[attempt.execution_id].append(attempt)

    def build(groups: dict[str, list[LoadedAttempt]]) -> list[CellRow]:
        return [
            CellRow(execution_id=key, attempts=sorted(groups[key], key=lambda a: (a.started_at, a.key)))
            for key in sorted(groups)
        ]

    return build(main), build(diagnostics)


def mode_counts(cell_rows: Sequence[CellRow]) -> list[ModeCounts]:
    """Counts kept apart per evidence mode: a scripted pass never adds to a live one."""
    result: dict[str, ModeCounts] = {}
    for row in cell_rows:
        mode = row.latest.evidence_mode
        counts = result.setdefault(
            mode, ModeCounts(mode=mode, latest=dict.fromkeys(VERDICT_ORDER, 0), all=dict.fromkeys(VERDICT_ORDER, 0))
        )
        counts.latest[row.latest.verdict] += 1
        for attempt in row.attempts:
            counts.all[attempt.verdict] += 1
    return [result[mode] for mode in sorted(result)]
