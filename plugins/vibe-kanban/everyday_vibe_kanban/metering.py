"""Each run's model calls, as our metering proxy recorded them (vibe-kanban meters nothing itself).

A Claude Code run vibe-kanban starts goes through :mod:`.claude_cli`, whose
proxy writes one ledger per run in the instance folder: a head naming the
worktree and the moment the run began, then one :class:`CallReport` per
call. A run vibe-kanban records is credited with the ledgers begun in its
attempt's worktree from its start until the next run of that attempt started
(the runs of an attempt follow one another: each follow-up starts when the
run before it has ended).
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from agents.metering.proxy import CallReport
from harness.products.records import Spend

LEDGERS = "metering"


class LedgerHead(BaseModel):
    """A ledger's first line: where and when the run began (seconds since the epoch)."""

    worktree: str
    began: float


def _read(path: Path) -> tuple[LedgerHead, list[CallReport]]:
    head, *calls = path.read_text().splitlines()
    return LedgerHead.model_validate_json(head), [CallReport.model_validate_json(line) for line in calls if line]


def run_spend(instance: Path, worktree: str, began: float, until: float | None) -> Spend:
    """The calls of the runs begun in ``worktree`` from ``began`` until ``until`` (None: no later run yet).

    vibe-kanban records a run's start just before it spawns the command, so a
    ledger begins at most a moment after it; a ledger is never older than its run.
    """
    calls: list[CallReport] = []
    for path in sorted((instance / LEDGERS).glob("*.jsonl")):
        head, reports = _read(path)
        if head.worktree == worktree and began - 1.0 <= head.began and (until is None or head.began < until):
            calls += reports
    answered = [call for call in calls if call.refused is None]
    return Spend(
        cents=round(sum(call.cost_cents for call in answered if not call.simulated), 4),
        simulated_cents=round(sum(call.cost_cents for call in answered if call.simulated), 4),
        calls=len(answered),
        refused_calls=len(calls) - len(answered),
    )
