"""A cell's attempts as epochs: each independent attempt counted once, whatever its automatic retries.

``harness run --attempts K`` plays K independent attempts (epochs) of a
cell; an epoch that ends in an infrastructure failure may be retried
automatically, and that retry belongs to the same epoch (``retry_of``). An
epoch's ending is its last attempt's: ``interrupted`` when a Ctrl-C cut it
short (never a verdict), else that attempt's verdict. An epoch is also an
attempt *slot*: a resume told to play a slot again writes an attempt that
``supersedes`` the old one, which stays on disk and is counted no more.
Resume, the per-cell figures and the comparison all count epochs through
this module, so they agree on which attempt stands for each slot.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path

from harness.core.records import AttemptRecord
from harness.core.verdicts import Verdict
from harness.results.packages import read_package
from harness.results.statistics import CellFigures, Tally, cell_figures

INTERRUPTED = "interrupted"
COMPLETE = frozenset({Verdict.PASSED, Verdict.FAILED, Verdict.UNEXERCISED, Verdict.SKIPPED})
"""Endings a resume keeps: an infrastructure failure or an interruption is run again."""


def ending(record: AttemptRecord) -> str:
    """How an attempt ended, for counting: its verdict, or ``interrupted``."""
    return INTERRUPTED if record.interrupted else record.verdict.value


def is_complete(record: AttemptRecord) -> bool:
    """An epoch that a resume leaves alone: a verdict about the product, not about the machine or a Ctrl-C."""
    return not record.interrupted and record.verdict in COMPLETE


def epoch_ends(records: Iterable[AttemptRecord]) -> list[AttemptRecord]:
    """The newest attempt of each slot (an original attempt, its retries and what a resume played again), oldest
    first."""
    records = list(records)
    replaced = superseded(records)
    ends = [record for record in records if record.attempt not in replaced]
    return sorted(ends, key=lambda record: (record.timing.started_at, record.attempt))


def superseded(records: Iterable[AttemptRecord]) -> set[str]:
    """The attempts another attempt replaced: by an automatic retry, or by a resume's ``--rerun``."""
    return {replaced for record in records for replaced in (record.retry_of, record.supersedes) if replaced}


def by_cell(records: Iterable[AttemptRecord]) -> dict[str, list[AttemptRecord]]:
    """execution id -> the ends of its epochs, oldest first; cells sorted."""
    grouped: dict[str, list[AttemptRecord]] = defaultdict(list)
    for record in records:
        grouped[record.cell.execution_id].append(record)
    return {cell: epoch_ends(grouped[cell]) for cell in sorted(grouped)}


def figures(ends: Sequence[AttemptRecord]) -> CellFigures:
    """One cell's figures over its epochs: decisive ones counted, the rest beside, failed checks with counts."""
    tally = Tally()
    checks: Counter[str] = Counter()
    for record in ends:
        tally.add(ending(record))
        if record.verdict is Verdict.FAILED and not record.interrupted:
            checks.update(set(record.failed_check_ids()))
    return cell_figures(tally, dict(checks))


def recorded_in(cell_folder: Path) -> list[AttemptRecord]:
    """The readable attempt records of one cell of one campaign (a package a kill cut short has none)."""
    if not cell_folder.is_dir():
        return []
    folders = sorted(child for child in cell_folder.iterdir() if child.is_dir())
    return [record for folder in folders if (record := read_package(cell_folder.parents[1], folder).record)]


def complete_epochs(cell_folder: Path) -> int:
    """Epochs of a cell a resume keeps."""
    return sum(1 for record in epoch_ends(recorded_in(cell_folder)) if is_complete(record))


def counted_ends(ends: Sequence[AttemptRecord], wanted: int) -> list[AttemptRecord]:
    """The epochs that stand as a cell's result when it was asked for ``wanted``: the latest complete ones, topped up
    with the latest that ended otherwise (never an interrupted one) when there are too few; oldest first.

    What a resume played again (an infrastructure failure, an interruption) is
    thereby replaced by what replaced it, and judged no more.
    """
    complete = [end for end in ends if is_complete(end)][-wanted:]
    others = [end for end in ends if not end.interrupted and not is_complete(end)]
    kept = complete + (others[-(wanted - len(complete)) :] if len(complete) < wanted else [])
    return sorted(kept, key=lambda record: record.timing.started_at)
