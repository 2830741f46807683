"""Grade every calibration case and compare the outcome with its expectation.

A row is wrong when a bad delivery passes, a good one fails, or a bad one
fails for a different check than expected; any wrong row fails the run.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Protocol, TypeVar

from pydantic import BaseModel, Field

from calibration.deliveries import cases
from calibration.delivery_case import Case
from calibration.traps import host_traps
from harness.core.records import AttemptRecord
from harness.core.settings import RunSettings
from harness.running.cell_worker import CellWorkers, Played
from harness.running.selection import select
from oracle import GradeJob, GradeOptions, GradeResult, grade_batch

ORACLE_WORKERS = 3
"""Containers at once: each grade is bounded to one CPU but spends much of its time in engine round trips."""


class Row(BaseModel):
    """One line of the calibration table."""

    suite: str
    delivery: str
    mode: str
    expected: str
    got: str
    deciding: str
    detail: str
    ok: bool
    seconds: float = Field(
        default=0.0, description="the case's own wall time when it ran as a story cell (0 for graded ZIPs)"
    )
    evidence: str = Field(default="", description="where a wrong row's evidence was kept (empty for a right row)")

    def wrong_line(self) -> str:
        """What was expected, what came and why, and where the evidence was kept: for the terminal and the record."""
        line = f"{self.suite}: {self.delivery} ({self.mode}) expected {self.expected}, got {self.got} {self.deciding}"
        return (
            line
            + (f": {self.detail}" if self.detail else "")
            + (f" (evidence: {self.evidence})" if self.evidence else "")
        )


def kept(row: Row, played: Path, keep: Path | None) -> Row:
    """The row, with what it was judged on moved to ``keep`` when it is wrong.

    Cases play into a temporary folder that goes with their suite: a right
    row's evidence is not needed again, and keeping every package would fill
    a disk over a few runs. A wrong row's evidence is the first thing its
    maintainer opens, so it is kept, and the row says where.
    """
    if row.ok or keep is None or not played.exists():
        return row
    keep.mkdir(parents=True, exist_ok=True)
    target = keep / played.name
    shutil.move(played, target)
    return row.model_copy(update={"evidence": str(target)})


def _row(case: Case, result: GradeResult) -> Row:
    """Compare one grade with its case's expectation."""
    failed = next((c for c in result.checks if c.id == result.deciding_check), None)
    got = "pass" if result.passed else "fail"
    expected = "pass" if case.expected is None else f"fail {case.expected}"
    ok = result.passed if case.expected is None else (not result.passed and result.deciding_check == case.expected)
    return Row(
        suite="oracle",
        delivery=case.name,
        mode=case.mode,
        expected=expected,
        got=got,
        deciding=result.deciding_check or "-",
        detail=failed.detail if failed else "",
        ok=ok,
    )


def run_oracle_suite(keep: Path | None = None, workers: int = ORACLE_WORKERS) -> list[Row]:
    """Every oracle case, graded as one batch (containers in parallel) against real containers, in registration order.

    One batch rather than one grade() per case: the engine connection, the
    image lookup and the leftover sweep are paid once for the whole suite.
    A wrong row keeps its ZIP and the oracle's result under ``keep``.
    """
    chosen = cases()
    with host_traps() as traps, tempfile.TemporaryDirectory(prefix="everyday-calibration-zips-") as folder:
        jobs = []
        for case in chosen:
            name = f"oracle-{case.name}-{case.mode.replace('+', '_')}"
            (Path(folder) / name).mkdir()
            path = Path(folder) / name / "delivery.zip"
            path.write_bytes(case.build(traps))
            jobs.append(GradeJob(zip_path=path, mode=case.mode, task=case.task))
        results = grade_batch(jobs, GradeOptions(workers=workers))
        rows = []
        for case, job, result in zip(chosen, jobs, results, strict=True):
            (job.zip_path.parent / "grade.json").write_text(result.model_dump_json(indent=2) + "\n")
            rows.append(kept(_row(case, result), job.zip_path.parent, keep))
    return rows


def table(rows: list[Row]) -> str:
    """A fixed-width table a maintainer can read at a glance."""
    header = ("", "delivery", "mode", "expected", "got", "deciding check")
    lines = [(("ok" if r.ok else "WRONG"), r.delivery, r.mode, r.expected, r.got, r.deciding) for r in rows]
    widths = [max(len(str(line[i])) for line in [header, *lines]) for i in range(len(header))]
    render = lambda line: "  ".join(str(cell).ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()  # noqa: E731
    return "\n".join([render(header), render(tuple("-" * w for w in widths)), *map(render, lines)])


def where_the_time_went(rows: list[Row], slowest: int = 10) -> str:
    """The story cells' total time and the slowest of them: what to look at first when calibration gets slower."""
    cells = sorted((r for r in rows if r.seconds), key=lambda r: r.seconds, reverse=True)
    if not cells:
        return ""
    lines = [f"story cells: {len(cells)}, {sum(r.seconds for r in cells):.0f} s of cell time; the slowest:"]
    lines += [f"  {r.seconds:6.1f} s  {r.delivery}" for r in cells[:slowest]]
    return "\n".join(lines)


PARALLEL_CELLS = 5
"""Story cells calibration plays at once, each in one of as many long-lived cell workers.

A cell mostly waits (on its agent's steps, the product's pages and the
engine), so more cells than cores keep the cores busy; the measured choice is
in docs/measurements.md.
"""


class CellPlayer(Protocol):
    """What plays calibration's story cells: local cell workers, or a Ray cluster (``--engine ray``)."""

    @property
    def stopping(self) -> bool: ...

    def play(self, settings: RunSettings) -> Played: ...

    def interrupt(self) -> None: ...


CELL_WORKERS = CellWorkers(PARALLEL_CELLS)
"""Shared by every suite: a worker's Python, imports and Chromium serve many cells, not one each."""
_PLAYERS: list[CellPlayer] = [CELL_WORKERS]


def play_on(player: CellPlayer) -> None:
    """Play every story cell from now on with ``player`` (``python -m calibration --engine ray``)."""
    _PLAYERS[:] = [player]


def cell_player() -> CellPlayer:
    return _PLAYERS[0]


class Stopped(Exception):
    """Calibration was told to stop: a case not yet started is not played."""


def stop_playing() -> None:
    """Ctrl-C: start no further case, and interrupt the cells being played (each ends as interrupted, cleaned up)."""
    cell_player().interrupt()


def play_cell(
    case: str, results: Path, campaign: str, workers: CellPlayer | None = None, **flags: object
) -> AttemptRecord | None:
    """Play one story cell (a case's scripted cell, or a full execution id) with calibration ``flags``; its last attempt.

    ``flags`` are RunSettings fields (``scripted_persona``, ``product_defect``,
    ``deadline_s``...): the same settings `harness run` builds from its flags.
    """
    cells = tuple(cell.execution_id for cell in select(ids=(case,)))
    player = workers or cell_player()
    played = player.play(RunSettings(cells=cells, results=results, campaign=campaign, **flags))
    if played.error and not player.stopping:  # its row says "no attempt"; this says why
        print(f"calibration: {campaign} was not played: {played.error}", file=sys.stderr)
    records = sorted((results / campaign).glob("*/*/attempt.json"))
    return AttemptRecord.model_validate_json(records[-1].read_text()) if records else None


class CellCase(Protocol):
    """A calibration case played as a story cell: its campaign names the folder its evidence goes in."""

    @property
    def campaign(self) -> str: ...


C = TypeVar("C")
P = TypeVar("P", bound=CellCase)
_CELL_SLOTS = [threading.BoundedSemaphore(PARALLEL_CELLS)]
"""Shared by every suite: suites run side by side (see ``calibration.__main__``), cells never more than the slots
(PARALLEL_CELLS unless ``play_at_most`` set another number)."""


def play_at_most(cells: int) -> None:
    """From now on play at most ``cells`` story cells at once, in as many cell workers (``--max-parallel``).

    Called before any suite plays: a slot already taken is not given back to the new count.
    """
    CELL_WORKERS.size = cells
    _CELL_SLOTS[:] = [threading.BoundedSemaphore(cells)]


def rows_in_parallel(cases: Sequence[C], row: Callable[[C], Row]) -> list[Row]:
    """One row per case, in the cases' order, each cell in one of the slots all suites share.

    Sharing the slots, not a pool per suite, lets the next suite's cells
    start while the last cells of the one before still run.
    """

    slots = _CELL_SLOTS[0]

    def in_a_slot(case: C) -> Row:
        with slots:
            if cell_player().stopping:
                raise Stopped(f"not played: {case}")
            started = time.monotonic()
            found = row(case)
            return found.model_copy(update={"seconds": time.monotonic() - started})

    with ThreadPoolExecutor(max_workers=PARALLEL_CELLS) as pool:
        return list(pool.map(in_a_slot, cases))


def played_rows(
    cases: Sequence[P],
    play: Callable[[P, Path], AttemptRecord | None],
    judge: Callable[[P, AttemptRecord | None], Row],
    keep: Path | None,
) -> list[Row]:
    """Play each case's cell into a temporary folder and judge its attempt; a wrong row's evidence goes to ``keep``."""
    with tempfile.TemporaryDirectory(prefix="everyday-calibration-cells-") as folder:
        played = Path(folder)
        return rows_in_parallel(cases, lambda case: kept(judge(case, play(case, played)), played / case.campaign, keep))
