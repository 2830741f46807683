"""Benchmark: throughput of `harness run --max-parallel N` against sequential on the free scripted cells.

Both runs are measured side by side in one invocation (alternating when
repeated, so a busy shared machine weighs on both alike), each as a user types
it: `harness run --suite everyday-workflows-scripted` in a subprocess, timed from start to exit. Prints wall
times, verdicts and the ratio sequential / parallel; never asserts a time.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from pydantic import BaseModel

from bench.arguments import count
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
    started = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - started
    records = [AttemptRecord.model_validate_json(p.read_text()) for p in results.glob(f"{campaign}/*/*/attempt.json")]
    verdicts = Counter(record.verdict.value for record in records)
    not_passed = sorted(
        _why(record) for record in records if record.verdict.value not in ("passed", "passed_with_recovery")
    )
    return Measurement(
        max_parallel=max_parallel,
        wall_s=round(wall, 2),
        exit_status=done.returncode,
        verdicts=verdicts,
        not_passed=not_passed,
    )


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
                for why in measured.not_passed:
                    print(f"    not passed: {why}")
    sequential = statistics.median(m.wall_s for m in runs[1])
    parallel = statistics.median(m.wall_s for m in runs[args.max_parallel])
    ratio = sequential / parallel
    print(f"sequential: {sequential:.1f} s   max-parallel {args.max_parallel}: {parallel:.1f} s (median wall time)")
    print(f"throughput ratio: {ratio:.2f}x (goal >= {GOAL_RATIO}x on 2 cores)")
    all_passed = all(m.exit_status == 0 for ms in runs.values() for m in ms)
    if not all_passed:
        print("note: some runs did not pass every cell; the figures time unequal work")
    return 0 if all_passed else 1


if __name__ == "__main__":
    sys.exit(run_benchmark(main))
