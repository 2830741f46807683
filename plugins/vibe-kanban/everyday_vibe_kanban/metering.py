"""Each run's model calls, as our metering proxy recorded them (vibe-kanban meters nothing itself).

A Claude Code run vibe-kanban starts goes through :mod:`.claude_cli`, whose
proxy writes one ledger per run in the instance folder: a head naming the
worktree and the moment the run began, then one :class:`CallReport` per
call. A forwarded call is written when admitted and again when it ends (under
one ``call_id``): its latest report counts, so a call cut short by Stop
counts at its admitted estimate. A run vibe-kanban records is credited with the ledgers begun in its
attempt's worktree from its start until the next run of that attempt started
(the runs of an attempt follow one another: each follow-up starts when the
run before it has ended).
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from harness.agents.metering.proxy import CallReport
from harness.core.product_records import Spend

LEDGERS = "metering"


class LedgerHead(BaseModel):
    """A ledger's first line: where and when the run began (seconds since the epoch)."""

    worktree: str
    began: float


def _read(path: Path) -> tuple[LedgerHead, list[CallReport]]:
    """The ledger's head and its calls, each once (its latest report); a line being written is not read yet."""
    head, *lines = path.read_text().splitlines(keepends=True)
    latest: dict[str, CallReport] = {}
    for n, line in enumerate(lines):
        if line.endswith("\n"):
            report = CallReport.model_validate_json(line)
            latest[report.call_id or f"refused {n}"] = report
    return LedgerHead.model_validate_json(head), list(latest.values())


def run_spend(instance: Path, worktree: str, began: float, until: float | None) -> Spend:
    """The calls of the runs begun in ``worktree`` from ``began`` until ``until`` (None: no later run yet).

    vibe-kanban records a run's start just before it spawns the command, so a
    ledger begins a moment after it (its stamps are whole seconds or finer: a second's slack).
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
