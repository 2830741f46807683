"""Benchmark: throughput of `harness run --max-parallel N` against sequential on the free scripted cells.

Both runs are measured side by side in one invocation (alternating when
repeated, so a busy shared machine weighs on both alike), each as a user types
it: `harness run --suite everyday-workflows-scripted` in a subprocess, timed from start to exit. Prints wall
times, verdicts and the ratio sequential / parallel; never asserts a time.

Each run's CPU is sampled by kind of process (``bench.cpu_by_kind``), because
the ratio has a ceiling set by the sequential run itself: one slot already
keeps more than one core busy (Chromium, the product's controller, the oracle's
containers and the harness work beside each other), so on 2 cores no
parallelism can do better than 2 cores over what one slot keeps busy. The
benchmark prints that ceiling beside the ratio, and which kinds of process
hold the cores in each run. A second ceiling comes from the cells' lengths:
however they are dealt, N slots take at least the longest of the one-slot
run's cell times and at least their sum over N, plus that run's time outside
its cells (the command's start, collection, the summary).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel

from bench.arguments import count
from bench.cpu_by_kind import CpuByKind, CpuSampler
from bench.entry import run_benchmark
from harness.core.records import AttemptRecord

GOAL_RATIO = 1.8
"""Issue 52: `--max-parallel 2` at least 1.8 times one slot's throughput on 2 cores."""
SUITE = "everyday-workflows-scripted"  # the free scripted cells: no agent CLI, no replay


class Measurement(BaseModel):
    """One whole `harness run`: how long it took and how its cells ended."""

    max_parallel: int
    wall_s: float
    exit_status: int
    verdicts: dict[str, int]
    not_passed: list[str] = []
    """Each cell that did not pass: its case and verdict, then its first failed check or its reason."""
    cpu: CpuByKind
    cell_s: list[float] = []
    """Each cell's share of the run: from the end of the attempt before it (the first: from its own start) to the
    end of its own, so the set-up between attempts counts with the cell it readies."""

    attempt_s: list[float] = []
    """Each attempt's own wall time, as its record has it: how much longer cells take beside another."""

    @property
    def cores_busy(self) -> float:
        """How many of the machine's cores the run kept busy on average."""
        return self.cpu.busy_s / self.wall_s if self.wall_s else 0.0


def _why(record: AttemptRecord) -> str:
    failed = next((check.id for check in record.checks if check.passed is False), None)
    return f"{record.cell.case} {record.verdict.value}: {failed or record.reason[:120] or 'no failed check'}"


def measure(results: Path, campaign: str, max_parallel: int) -> Measurement:
    """Run every scripted cell once with the given parallelism, in its own campaign."""
    command = [
        sys.executable,
        "-m",
        "harness.cli",
        "run",
        "--suite",
        SUITE,
        "--results",
        str(results),
        "--campaign",
        campaign,
    ]
    command += ["--max-parallel", str(max_parallel)]
    with CpuSampler() as sampler:
        started = time.perf_counter()
        done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        wall = time.perf_counter() - started
    assert sampler.result is not None  # set on leaving the block
    records = [AttemptRecord.model_validate_json(p.read_text()) for p in results.glob(f"{campaign}/*/*/attempt.json")]
    verdicts = Counter(record.verdict.value for record in records)
    not_passed = sorted(
        _why(record) for record in records if record.verdict.value not in ("passed", "passed_with_recovery")
    )
    return Measurement(
        attempt_s=[r.timing.wall_s for r in records if r.timing.wall_s is not None],
        cell_s=cell_shares([(r.timing.started_at, r.timing.ended_at) for r in records if r.timing.ended_at]),
        max_parallel=max_parallel,
        wall_s=round(wall, 2),
        exit_status=done.returncode,
        verdicts=verdicts,
        not_passed=not_passed,
        cpu=sampler.result,
    )


def cell_shares(spans: list[tuple[datetime, datetime]]) -> list[float]:
    """See :attr:`Measurement.cell_s`, from each attempt's start and end (meaningful for a one-slot run, whose
    attempts follow one another)."""
    ordered = sorted(spans)
    ends = [ordered[0][0]] + [end for _, end in ordered] if ordered else []
    return [(later - earlier).total_seconds() for earlier, later in zip(ends, ends[1:], strict=False)]


def makespan_bound(lengths: list[float], slots: int) -> float:
    """No dealing of jobs of these lengths to ``slots`` workers ends sooner: each slot's share of the total, and the
    longest job, which one slot must take whole."""
    return max(max(lengths, default=0.0), sum(lengths) / slots)


def schedule_ceiling(sequential: Measurement, slots: int) -> tuple[float, float]:
    """The time outside cells and the ratio the cells' lengths allow ``slots`` workers at best."""
    outside = max(sequential.wall_s - sum(sequential.cell_s), 0.0)
    best = outside + makespan_bound(sequential.cell_s, slots)
    return outside, sequential.wall_s / best if best else 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.parallel", description=__doc__)
    parser.add_argument("--max-parallel", type=count, default=2, help="workers of the parallel run (default 2)")
    parser.add_argument("--repetitions", type=count, default=1, help="pairs of runs (default 1)")
    args = parser.parse_args(argv)
    listing = [sys.executable, "-m", "harness.cli", "list", "--suite", SUITE]
    cells = subprocess.run(listing, capture_output=True, text=True, check=True).stdout.split()
    print(f"parallel benchmark: {len(cells)} scripted cell(s), sequential vs --max-parallel {args.max_parallel}")
    runs: dict[int, list[Measurement]] = {1: [], args.max_parallel: []}
    with tempfile.TemporaryDirectory(prefix="everyday-bench-parallel-") as folder:
        for number in range(args.repetitions):
            # Alternate which goes first, so neither always meets a warmer or busier machine.
            order = (1, args.max_parallel) if number % 2 == 0 else (args.max_parallel, 1)
            for workers in order:
                measured = measure(Path(folder), f"bench-{number}-n{workers}", workers)
                runs[workers].append(measured)
                verdicts = ", ".join(f"{n} {v}" for v, n in sorted(measured.verdicts.items())) or "no records"
                label = f"run {number + 1}, max-parallel {workers}"
                print(f"  {label}: {measured.wall_s:.1f} s, exit {measured.exit_status} ({verdicts})")
                print(f"    {measured.cpu.busy_s:.0f} CPU-s busy, {measured.cores_busy:.2f} cores on average")
                print("    " + measured.cpu.table(len(cells), "cell").replace("\n", "\n    "))
                for why in measured.not_passed:
                    print(f"    not passed: {why}")
    sequential = statistics.median(m.wall_s for m in runs[1])
    parallel = statistics.median(m.wall_s for m in runs[args.max_parallel])
    ratio = sequential / parallel
    print(f"sequential: {sequential:.1f} s   max-parallel {args.max_parallel}: {parallel:.1f} s (median wall time)")
    print(f"throughput ratio: {ratio:.2f}x (goal >= {GOAL_RATIO}x on 2 cores)")
    one_slot = statistics.median(m.cores_busy for m in runs[1])
    cores = os.cpu_count() or 1
    print(
        f"ceiling: one slot keeps {one_slot:.2f} cores busy, so {cores} cores allow at most "
        f"{cores / one_slot:.2f}x; the parallel run kept "
        f"{statistics.median(m.cores_busy for m in runs[args.max_parallel]):.2f} busy"
    )
    outside, by_lengths = schedule_ceiling(min(runs[1], key=lambda m: m.wall_s), args.max_parallel)
    print(
        f"ceiling by the cells' lengths: {outside:.1f} s of the one-slot run is outside its cells; however they "
        f"are dealt to {args.max_parallel} slots, its cells allow at most {by_lengths:.2f}x"
    )
    times = [[s for m in runs[n] for s in m.attempt_s] for n in (1, args.max_parallel)]
    if all(times):
        alone, beside = (statistics.median(t) for t in times)
        print(
            f"an attempt's own wall time, median: {alone:.1f} s alone, {beside:.1f} s with {args.max_parallel} at "
            f"once ({beside / alone:.2f}x): what the cells' sharing of the machine costs each"
        )
    all_passed = all(m.exit_status == 0 for ms in runs.values() for m in ms)
    if not all_passed:
        print("note: some runs did not pass every cell; the figures time unequal work")
    return 0 if all_passed else 1


if __name__ == "__main__":
    sys.exit(run_benchmark(main))
