"""`python -m bench.calibration`: how long `make calibrate` takes, suite by suite, against its goal.

Runs `python -m calibration` as a user does (every suite, or the ones named)
and prints the wall time of each suite and of the whole command beside the
goal. A benchmark, not a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time

from bench.entry import run_benchmark

GOAL_S = 120.0
SUITE_LINE = re.compile(r"^suite (?P<name>\S+): (?P<cases>\d+) cases in (?P<seconds>[\d.]+) s$")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.calibration", description=__doc__)
    parser.add_argument("suites", nargs="*", metavar="SUITE", help="suites to time (default: every suite)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="everyday-bench-calibration-") as results:
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
    verdict = "within" if wall <= GOAL_S else "OVER"
    print(f"calibration ({' '.join(args.suites) or 'every suite'}): {wall:.1f} s, {verdict} the goal of {GOAL_S:.0f} s")
    if done.returncode != 0:
        print(f"calibration exited {done.returncode}: {done.stderr.strip()[-500:]}", file=sys.stderr)
    return done.returncode


if __name__ == "__main__":
    sys.exit(run_benchmark(main))
