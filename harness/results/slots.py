"""Which attempt slots of a cell a run plays: all of them fresh, or on a resume only those missing or named by --rerun.

A slot is one independent attempt of a cell (with ``--pair``: one pair, an
attempt per variant). A resume plays a slot again when nothing ended in it
with a verdict (``missing``: never started, killed before its record, or
interrupted) or when its newest attempt ended as ``--rerun`` names. The new
attempt records which one it ``supersedes``; the old one stays on disk and
is counted no more. A pair is played again whole, both halves back to back,
so its halves keep seeing the same inputs at the same time.
"""

from __future__ import annotations

import secrets as random_tokens
from collections.abc import Sequence

from pydantic import BaseModel, Field

from harness.core.records import AttemptRecord
from harness.results.epochs import epoch_ends

MISSING = "missing"


class Slot(BaseModel):
    """One slot to play: its pair id (a paired run), and per variant label the attempt it replaces (if any)."""

    pair: str | None = None
    supersedes: dict[str, str] = Field(default_factory=dict, description="variant label -> attempt it replaces")


def new_pair_id() -> str:
    """Unique across machines, like attempt ids, so merged campaigns never join two pairs."""
    return f"pair-{random_tokens.token_hex(6)}"


def _fresh(paired: bool) -> Slot:
    return Slot(pair=new_pair_id()) if paired else Slot()


def _needs_playing(end: AttemptRecord | None, reruns: frozenset[str]) -> bool:
    if end is None or end.interrupted:
        return MISSING in reruns
    return end.verdict.value in reruns


def slots_to_play(
    records: Sequence[AttemptRecord],
    wanted: int,
    labels: Sequence[str],
    reruns: frozenset[str] | None,
    paired: bool,
) -> list[Slot]:
    """The slots a run plays: ``wanted`` fresh ones, or with ``reruns`` (a resume) only what it names.

    ``labels`` are the variants each slot is played with (one unlabelled
    variant for a plain run).
    """
    if reruns is None:
        return [_fresh(paired) for _ in range(wanted)]
    ends = epoch_ends(records)
    if not paired:
        again = [Slot(supersedes={labels[0]: end.attempt}) for end in ends if _needs_playing(end, reruns)]
        missing = max(0, wanted - len(ends)) if MISSING in reruns else 0
        return again + [_fresh(paired) for _ in range(missing)]
    halves: dict[str, dict[str, AttemptRecord]] = {}
    for end in ends:
        if end.pair is not None:
            halves.setdefault(end.pair.id, {})[end.pair.variant] = end
    again = [
        Slot(pair=pair, supersedes={label: end.attempt for label, end in found.items()})
        for pair, found in sorted(halves.items())
        if any(_needs_playing(found.get(label), reruns) for label in labels)
    ]
    missing = max(0, wanted - len(halves)) if MISSING in reruns else 0
    return again + [_fresh(paired) for _ in range(missing)]
