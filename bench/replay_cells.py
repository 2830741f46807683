"""Wall time and peak memory of one build-revise per agent CLI against the replay, beside the scripted agent's.

``python -m bench.replay_cells``. Each cell is a real ``harness run`` in a
process of its own (browser, product, runner, CLI, metering proxy, replay
server), one after another so they never share the machine. Wall time is the
whole command; peak memory is the largest resident set among the processes
it waited for (the harness, the product and its runners, the CLIs: each
reaps its own children, so their peaks roll up), read from ``getrusage``.
Each cell runs ``--repeat`` times (default 3) and the table prints the
median wall time and peak memory, with the range, because one run on a
shared machine is noise; a run whose verdict is not ``passed`` is shown and
kept out of the medians.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time

from pydantic import BaseModel

CELLS = (
    "everyday-workflows-scripted.scripted.local.build-revise",
    "everyday-workflows-replay.replay-codex.local.build-revise",
    "everyday-workflows-replay.replay-claude.local.build-revise",
    "everyday-workflows-replay.replay-opencode.local.build-revise",
)


class Sample(BaseModel):
    """One run of one cell, as its measuring process prints it (JSON on one line)."""

    cell: str
    verdict: str
    wall_s: float
    peak_mib: float


def measure(cell: str, results: str) -> Sample:
    """One cell in this process's children only (run as ``--one``)."""
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "harness.cli", "run", "--id", cell, "--results", results, "--campaign", "bench"],
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.monotonic() - started
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # kilobytes on Linux
    verdict = next((line.split()[0] for line in done.stdout.splitlines() if line.strip().endswith(cell)), "no-verdict")
    return Sample(cell=cell, verdict=verdict, wall_s=round(wall, 2), peak_mib=round(peak_mib, 1))


def row(cell: str, samples: list[Sample]) -> str:
    """Median (min-max) of the passed runs; the verdicts of all of them."""
    passed = [sample for sample in samples if sample.verdict == "passed"]
    verdicts = ",".join(sample.verdict for sample in samples) or "error"
    if not passed:
        return f"{cell:<62} {verdicts:<22} {'-':>17} {'-':>17}"
    walls, peaks = [s.wall_s for s in passed], [s.peak_mib for s in passed]
    wall = f"{statistics.median(walls):.1f} ({min(walls):.0f}-{max(walls):.0f})"
    peak = f"{statistics.median(peaks):.0f} ({min(peaks):.0f}-{max(peaks):.0f})"
    return f"{cell:<62} {verdicts:<22} {wall:>17} {peak:>17}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.replay_cells", description=__doc__)
    parser.add_argument("--cells", nargs="*", default=list(CELLS))
    parser.add_argument("--repeat", type=int, default=3, help="runs per cell; the table shows medians (default 3)")
    parser.add_argument("--one", nargs=2, metavar=("CELL", "RESULTS"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if args.one:  # a fresh process per cell, so getrusage's maximum is this cell's alone
        print(measure(*args.one).model_dump_json())
        return
    print(f"median of {args.repeat} run(s) per cell, one cell at a time")
    print(f"{'cell':<62} {'verdicts':<22} {'wall s (range)':>17} {'peak MiB (range)':>17}")
    with tempfile.TemporaryDirectory(prefix="bench-replay-") as results:
        for cell in args.cells:
            samples = []
            for _ in range(args.repeat):
                done = subprocess.run(
                    [sys.executable, "-m", "bench.replay_cells", "--one", cell, results],
                    capture_output=True,
                    text=True,
                    check=False,
                )
                if done.returncode != 0 or not done.stdout.strip():
                    print(f"{cell}: measuring failed: {done.stderr.strip()[-300:]}", file=sys.stderr)
                    continue
                samples.append(Sample.model_validate_json(done.stdout.strip().splitlines()[-1]))
            print(row(cell, samples), flush=True)


if __name__ == "__main__":
    main()
