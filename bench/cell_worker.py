"""`python -m bench.cell_worker`: what a story cell costs the machine through `harness run` and in a warm cell worker.

Calibration plays its story cells in long-lived cell workers
(`harness.running.cell_worker`) instead of one `harness run` each. This
measures what that saves, side by side in the same run: the scripted
build-revise cell played alternately as a `harness run` command and in a
worker that has already played one cell. Each figure is the whole
machine's busy CPU over the cell (the product, its runners, Chromium and
the engine are not the caller's children) and its wall time; medians and
the worker's ratio to the command are printed. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from pydantic import BaseModel

from bench.arguments import count
from bench.entry import run_benchmark
from calibration.runner import play_cell
from harness.core.machine_cpu import machine_busy_seconds
from harness.running.cell_worker import CellWorkers

CASE = "build-revise"


class Cost(BaseModel):
    cpu_s: float
    wall_s: float


def measured(play: Callable[[], object]) -> Cost:
    busy, started = machine_busy_seconds() or 0.0, time.perf_counter()
    play()
    return Cost(cpu_s=(machine_busy_seconds() or 0.0) - busy, wall_s=time.perf_counter() - started)


def as_a_command(results: Path, campaign: str) -> None:
    command = [sys.executable, "-m", "harness.cli", "run", "--id", CASE, "--results", str(results)]
    subprocess.run([*command, "--campaign", campaign], capture_output=True, check=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.cell_worker", description=__doc__)
    parser.add_argument("--rounds", type=count, default=3, help="cells played each way (default 3)")
    args = parser.parse_args(argv)
    command: list[Cost] = []
    worker: list[Cost] = []
    workers = CellWorkers(1)
    with tempfile.TemporaryDirectory(prefix="everyday-bench-cell-worker-") as folder:
        results = Path(folder)
        try:
            first = measured(partial(play_cell, CASE, results, "warm-up", workers))
            for round_ in range(args.rounds):
                command.append(measured(partial(as_a_command, results, f"command-{round_}")))
                worker.append(measured(partial(play_cell, CASE, results, f"worker-{round_}", workers)))
        finally:
            workers.close()
        attempts = sorted(results.glob("*/*/*/attempt.json"))
    if len(attempts) != 1 + 2 * args.rounds:
        print(f"expected {1 + 2 * args.rounds} attempts, found {len(attempts)}", file=sys.stderr)
        return 1

    def median(costs: list[Cost], field: str) -> float:
        return statistics.median(getattr(cost, field) for cost in costs)

    print(f"scripted {CASE}, machine busy CPU and wall time per cell, medians of {args.rounds}:")
    print(f"  first cell in a new worker   {first.cpu_s:5.1f} CPU-s  {first.wall_s:5.1f} s")
    for label, costs in (("`harness run` command", command), ("warm cell worker", worker)):
        print(f"  {label:<28} {median(costs, 'cpu_s'):5.1f} CPU-s  {median(costs, 'wall_s'):5.1f} s")
    print(
        f"worker / command: {median(worker, 'cpu_s') / median(command, 'cpu_s'):.2f}x CPU,"
        f" {median(worker, 'wall_s') / median(command, 'wall_s'):.2f}x wall"
    )
    return 0


if __name__ == "__main__":
    sys.exit(run_benchmark(main))
