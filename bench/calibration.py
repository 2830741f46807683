"""`python -m bench.calibration`: how long `make calibrate` takes, suite by suite, against its goal.

Runs `python -m calibration` as a user does (every suite, or the ones named)
and prints the wall time of each suite and of the whole command beside the
goal, then where the machine's CPU went by kind of process
(``bench.cpu_by_kind``) and what the parts a story cell cannot do without
(the browser, the product, the engine) cost per cell. A benchmark, not a
test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

from bench.cpu_by_kind import CONTAINERS, CpuByKind, CpuSampler
from bench.entry import run_benchmark

GOAL_S = 120.0
SUITE_LINE = re.compile(r"^suite (?P<name>\S+): (?P<cases>\d+) cases in (?P<seconds>[\d.]+) s$")
CELLS_LINE = re.compile(r"^story cells: (?P<cells>\d+), ")
NOT_THE_HARNESS = frozenset(
    {"Chromium", "product controllers", "product runners", "agent CLIs", "Docker engine", CONTAINERS}
)
"""What a story cell runs whatever the harness does: the real browser, product and engine."""
NOT_THE_PROJECTS = frozenset({"Chromium", "Playwright's driver (node)", "agent CLIs", "Docker engine", CONTAINERS})
"""Software the project runs but does not write; its CPU follows from what a cell asks of it (pages, grades, turns)."""


def floor_of(kinds: frozenset[str], what: str, cpu: CpuByKind, cells: int, cores: int) -> str:
    """The floor those kinds alone set: their CPU per story cell, and that CPU over the machine's cores."""
    theirs = sum(share.cpu_s for share in cpu.kinds if share.kind in kinds)
    return f"  {what} alone: {theirs / cells:.2f} CPU-s per story cell, {theirs / cores:.0f} s on {cores} cores"


FLOORS = (
    (NOT_THE_HARNESS, "the browser, product and engine"),
    (NOT_THE_PROJECTS, "Chromium, Playwright's driver, the Docker engine and its containers, agent CLIs"),
)


def floors(cpu: CpuByKind, cells: int, cores: int) -> str:
    """Per story cell: all the CPU, then what the real browser, product and engine need, then the third-party part of it.

    The last line is what a goal in seconds has to clear before the
    harness, the testbed and the kernel add anything: only fewer pages,
    grades or cells would lower it.
    """
    lines = [f"  per story cell: {cpu.busy_s / cells:.2f} CPU-s in all"]
    return "\n".join(lines + [floor_of(kinds, what, cpu, cells, cores) for kinds, what in FLOORS])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.calibration", description=__doc__)
    parser.add_argument("suites", nargs="*", metavar="SUITE", help="suites to time (default: every suite)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="everyday-bench-calibration-") as results, CpuSampler() as sampler:
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "calibration", *args.suites, "--results", results],
            capture_output=True,
            text=True,
            check=False,
        )
        wall = time.perf_counter() - started
    suites = [m for m in map(SUITE_LINE.match, done.stdout.splitlines()) if m]
    for suite in suites:
        print(f"  {suite['name']:<16} {int(suite['cases']):3d} cases  {float(suite['seconds']):7.1f} s")
    # What the cores allow: the busy CPU over the run shared over them, a floor no schedule of these cells beats.
    for line in done.stdout.splitlines():
        if line.startswith("machine CPU: "):
            print(f"  {line}")
    cells = next((int(m["cells"]) for m in map(CELLS_LINE.match, done.stdout.splitlines()) if m), 0)
    if sampler.result is not None:
        print(sampler.result.table(per=cells, per_what="story cell"))
        if cells:
            print(floors(sampler.result, cells, os.cpu_count() or 1))
    verdict = "within" if wall <= GOAL_S else "OVER"
    print(f"calibration ({' '.join(args.suites) or 'every suite'}): {wall:.1f} s, {verdict} the goal of {GOAL_S:.0f} s")
    if done.returncode != 0:
        print(f"calibration exited {done.returncode}: {done.stderr.strip()[-500:]}", file=sys.stderr)
    return done.returncode


if __name__ == "__main__":
    sys.exit(run_benchmark(main))
