"""The machine-readable campaign summary: counts per verdict per evidence mode, cost, durations.

CI and dashboards read this instead of scraping the report. Counts are kept
per evidence mode because a scripted pass and a live pass prove different
things; adding them would produce a number that means nothing. Broken
packages are counted under ``broken``; diagnostics attempts are counted
separately, but their cost is included (money spent is money spent).
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Sequence
from datetime import datetime

from pydantic import BaseModel, Field

from harness.core import registry
from harness.core.criteria import Criterion
from harness.core.records import AttemptRecord, utc_now
from harness.judges.overview import JudgedOverview, overview
from harness.results.epochs import ending, epoch_ends, figures, superseded
from harness.results.packages import BROKEN, LoadedAttempt
from harness.results.plan import planned_cells
from harness.results.statistics import CellFigures, SuiteFigures, suite_mean

SUMMARY_SCHEMA_VERSION = 1
VERDICT_ORDER = (
    "passed",
    "passed_with_recovery",
    "failed",
    "infrastructure_failed",
    "unexercised",
    "skipped",
    "broken",
)


class Durations(BaseModel):
    total_s: float = 0.0
    median_s: float | None = None
    max_s: float | None = None


class CampaignSummary(BaseModel):
    campaign: str
    attempts: int
    cells: dict[str, CellFigures] = Field(
        default_factory=dict,
        description="execution id -> figures over its independent attempts (decisive ones only; the rest beside)",
    )
    suites: dict[str, SuiteFigures] = Field(
        default_factory=dict, description="suite -> the mean of its cells' pass rates, with its interval"
    )
    not_run: list[str] = Field(default_factory=list, description="cells the campaign selected that have no attempt")
    diagnostics: int = Field(description="attempts kept out of the promoted matrix (still counted by mode)")
    by_mode: dict[str, dict[str, int]] = Field(description="evidence mode -> verdict -> attempts")
    cost_cents: int
    run_count: int
    wall: Durations
    started_at: datetime | None = None
    ended_at: datetime | None = None
    judged: JudgedOverview = Field(
        default_factory=JudgedOverview, description="judged criteria: states, the quality gate, the judges' spend"
    )


class ResultsSummary(BaseModel):
    schema_version: int = SUMMARY_SCHEMA_VERSION
    generated_at: datetime = Field(default_factory=utc_now)
    campaigns: list[CampaignSummary]
    overall: CampaignSummary


def count_by_mode(attempts: Sequence[LoadedAttempt]) -> dict[str, dict[str, int]]:
    """mode -> verdict -> n, every verdict present (zeros included) so no class is hidden."""
    counts: dict[str, dict[str, int]] = {}
    for attempt in attempts:
        row = counts.setdefault(attempt.evidence_mode, dict.fromkeys(VERDICT_ORDER, 0))
        row[attempt.verdict] = row.get(attempt.verdict, 0) + 1
    return dict(sorted(counts.items()))


def cell_and_suite_figures(
    records: Sequence[AttemptRecord],
) -> tuple[dict[str, CellFigures], dict[str, SuiteFigures]]:
    """Per cell its figures over its epochs; per suite the mean of those cells' rates.

    A paired run's variants are figured apart, never pooled: their cells and
    suites are keyed with the variant beside them (``<cell> [<variant>]``).
    """
    grouped: dict[str, list[AttemptRecord]] = defaultdict(list)
    suite_of: dict[str, str] = {}
    for record in records:
        variant = f" [{record.pair.variant}]" if record.pair else ""
        grouped[record.cell.execution_id + variant].append(record)
        suite_of[record.cell.execution_id + variant] = record.cell.suite + variant
    cells = {cell: figures(epoch_ends(grouped[cell])) for cell in sorted(grouped)}
    rates: dict[str, list[float]] = defaultdict(list)
    for cell, cell_figures in cells.items():
        if cell_figures.rate is not None:
            rates[suite_of[cell]].append(cell_figures.rate)
    return cells, {suite: suite_mean(rates[suite]) for suite in sorted(set(suite_of.values()))}


def summarize_campaign(
    campaign: str, attempts: Sequence[LoadedAttempt], planned: Sequence[str] = (), per_cell: bool = True
) -> CampaignSummary:
    """One campaign's counts; with ``per_cell`` its cells' and suites' figures, and the planned cells not run."""
    records = [attempt.record for attempt in attempts if attempt.record]
    cells, suites = cell_and_suite_figures(records) if per_cell else ({}, {})
    walls = [record.timing.wall_s for record in records if record.timing.wall_s is not None]
    ends = [record.timing.ended_at for record in records if record.timing.ended_at]
    return CampaignSummary(
        campaign=campaign,
        attempts=len(attempts),
        cells=cells,
        suites=suites,
        not_run=[cell for cell in planned if cell not in {attempt.execution_id for attempt in attempts}],
        diagnostics=sum(1 for attempt in attempts if attempt.diagnostic_reason),
        by_mode=count_by_mode(attempts),
        cost_cents=sum(record.accounting.cost_cents for record in records),
        run_count=sum(record.accounting.run_count for record in records),
        wall=Durations(
            total_s=round(sum(walls), 3),
            median_s=statistics.median(walls) if walls else None,
            max_s=max(walls) if walls else None,
        ),
        started_at=min((record.timing.started_at for record in records), default=None),
        ended_at=max(ends, default=None),
        judged=overview((a.folder, _criteria().get(a.case, ())) for a in attempts if a.record),
    )


def _criteria() -> dict[str, tuple[Criterion, ...]]:
    return {case.name: case.criteria for case in registry.cases()}


def summarize(attempts: Sequence[LoadedAttempt]) -> ResultsSummary:
    by_campaign: dict[str, list[LoadedAttempt]] = defaultdict(list)
    for attempt in attempts:
        by_campaign[attempt.campaign].append(attempt)
    return ResultsSummary(
        campaigns=[
            summarize_campaign(name, by_campaign[name], planned_cells({a.results for a in by_campaign[name]}, name))
            for name in sorted(by_campaign)
        ],
        overall=summarize_campaign("*", attempts, per_cell=False),
    )


def attempts_table(attempts: Sequence[LoadedAttempt]) -> str:
    """One row per attempt, as a person reads it in a terminal: cell, how it ended, failed checks, time, cost.

    Attempts kept out of the matrix (calibration settings, retired cells) are
    marked ``(diagnostic)``, attempts a retry or a resume played again
    ``(superseded)`` (kept, no longer counted), a paired run's attempts with
    their variant; a broken package shows why it cannot be read.
    """
    rows = [("cell", "verdict", "failed checks", "time", "cost")]
    replaced = superseded(attempt.record for attempt in attempts if attempt.record)
    for attempt in attempts:
        record = attempt.record
        verdict = ending(record) if record else BROKEN
        if record and record.pair:
            verdict += f" [{record.pair.variant}]"
        if record and record.attempt in replaced:
            verdict += " (superseded)"
        if attempt.diagnostic_reason:
            verdict += " (diagnostic)"
        if record is None:
            rows.append((attempt.execution_id, verdict, attempt.problem or "", "-", "-"))
            continue
        checks = ", ".join(record.failed_check_ids()) or "-"
        wall = f"{record.timing.wall_s:.1f} s" if record.timing.wall_s is not None else "-"
        rows.append((attempt.execution_id, verdict, checks, wall, f"{record.accounting.cost_cents / 100:.2f} $"))
    widths = [max(len(row[column]) for row in rows) for column in range(4)]
    lines = [
        "  ".join(f"{value:<{width}}" for value, width in zip(row[:4], widths, strict=True)) + f"  {row[4]:>8}"
        for row in rows
    ]
    return "\n".join(lines)


def summary_text(summary: CampaignSummary, attempts: Sequence[LoadedAttempt]) -> str:
    """``harness summary``'s screen for one campaign: its table, then its totals."""
    endings = Counter(ending(attempt.record) if attempt.record else BROKEN for attempt in attempts)
    counts = ", ".join(f"{n} {verdict}" for verdict, n in sorted(endings.items()))
    lines = [f"campaign {summary.campaign}: {summary.attempts} attempt(s)", attempts_table(attempts)]
    lines.append(f"verdicts: {counts or 'none'}")
    if summary.diagnostics:
        lines.append(f"diagnostic attempts (kept out of the matrix): {summary.diagnostics}")
    lines.append(f"time: {summary.wall.total_s:.1f} s in attempts; cost: {summary.cost_cents / 100:.2f} $")
    if judged := summary.judged.line():
        lines.append(judged)
    lines += [f"not run: {cell}" for cell in summary.not_run]
    return "\n".join(lines)
