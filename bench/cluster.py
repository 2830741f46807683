"""Benchmark: the same free scripted cells on the local engine and on a two-node Ray cluster on this machine.

``python -m bench.cluster [--cells N | --calibration SUITE]``. Each run is a
whole `harness run` (or, with ``--calibration``, `python -m calibration SUITE`)
as a person types it, timed from start to exit: the local engine with
``--max-parallel 2`` (one cell per core), then ``--engine ray`` on a local
cluster of two nodes with one cell slot each (the same two cores), the
cluster started before the clock starts. Prints both wall times side by
side and the Ray engine's per-cell dispatch overhead (a task's round trip
less its node's own play time: scheduling, the package's trip home and its
unpacking). Never asserts a time.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time

from pydantic import BaseModel

from bench.arguments import count
from bench.entry import run_benchmark
from harness.running.cluster.local import local_cluster

SUITE = "everyday-workflows-scripted"
OVERHEAD = re.compile(r"dispatch overhead per cell: median ([0-9.]+) s, max ([0-9.]+) s")
VERDICTS = re.compile(r"^verdicts: (.*)$", re.MULTILINE)
CALIBRATED = re.compile(r"^(\d+/\d+ cases as expected)", re.MULTILINE)


class Measured(BaseModel):
    engine: str
    wall_s: float
    exit_status: int
    overhead: str = ""
    verdicts: str = ""


def timed(engine: str, command: list[str]) -> Measured:
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    found = OVERHEAD.search(done.stdout)
    overhead = f"median {found.group(1)} s, max {found.group(2)} s" if found else ""
    verdicts = VERDICTS.search(done.stdout) or CALIBRATED.search(done.stdout)
    return Measured(
        engine=engine,
        wall_s=round(wall, 1),
        exit_status=done.returncode,
        overhead=overhead,
        verdicts=verdicts.group(1) if verdicts else "none printed",
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.cluster", description=__doc__)
    parser.add_argument("--cells", type=count, default=6, help="how many of the free scripted cells (default 6)")
    parser.add_argument("--calibration", metavar="SUITE", help="time this calibration suite instead of cells")
    args = parser.parse_args(argv)
    if args.calibration:
        cells = [f"calibration suite {args.calibration}"]
        print(f"cluster benchmark: {cells[0]}, local engine against a two-node Ray cluster")
    else:
        listing = [sys.executable, "-m", "harness.cli", "list", "--suite", SUITE]
        cells = subprocess.run(listing, capture_output=True, text=True, check=True).stdout.split()[: args.cells]
        print(f"cluster benchmark: {len(cells)} free scripted cell(s), local engine against a two-node Ray cluster")
    with tempfile.TemporaryDirectory(prefix="everyday-bench-cluster-") as folder:

        def command(engine: str, *ray: str) -> list[str]:
            if args.calibration:
                results = ["--results", f"{folder}/{engine}"]
                return [sys.executable, "-m", "calibration", args.calibration, *results, "--engine", engine, *ray]
            ids = [part for cell in cells for part in ("--id", cell)]
            run = [sys.executable, "-m", "harness.cli", "run", *ids, "--results", folder, "--campaign", engine]
            return [*run, "--engine", engine, *ray] if ray else [*run, "--max-parallel", "2"]

        local = timed("local", command("local"))
        started = time.perf_counter()
        with local_cluster(nodes=2) as cluster:
            up = time.perf_counter() - started
            ray = timed("ray, 2 nodes x 1 slot", command("ray", "--ray-address", cluster.address))
    print(f"  cluster start (not timed below): {up:.1f} s")
    for measured in (local, ray):
        print(
            f"  {measured.engine:<24} {measured.wall_s:6.1f} s wall, exit {measured.exit_status} ({measured.verdicts})"
        )
    print(f"  ray / local wall: {ray.wall_s / local.wall_s:.2f}x")
    if not args.calibration:  # calibration prints no per-cell figures of its own
        print(f"  dispatch overhead per cell on Ray: {ray.overhead or 'not printed (no cell came home)'}")
        print(
            f"  per cell: local {local.wall_s / len(cells):.1f} s, ray {ray.wall_s / len(cells):.1f} s (wall / cells)"
        )
    return 0 if local.exit_status == ray.exit_status == 0 else 1


if __name__ == "__main__":
    sys.exit(run_benchmark(main))
