"""Wall time and peak memory of one build-revise per agent CLI against the replay, beside the scripted agent's.

``python -m bench.replay_cells``. Each cell is a real ``harness run`` in a
process of its own (browser, product, runner, CLI, metering proxy, replay
server), one after another so they never share the machine. Wall time is the
whole command; peak memory is the largest resident set among the processes
it waited for (the harness, the product and its runners, the CLIs: each
reaps its own children, so their peaks roll up), read from ``getrusage``.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time

CELLS = (
    "everyday-workflows-scripted.scripted.local.build-revise",
    "everyday-workflows-replay.replay-codex.local.build-revise",
    "everyday-workflows-replay.replay-claude.local.build-revise",
    "everyday-workflows-replay.replay-opencode.local.build-revise",
)


def measure(cell: str, results: str) -> str:
    """One cell in this process's children only (run as ``--one``): its table row."""
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
    return f"{cell:<62} {verdict:<8} {wall:>7.1f} {peak_mib:>9.0f}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.replay_cells", description=__doc__)
    parser.add_argument("--cells", nargs="*", default=list(CELLS))
    parser.add_argument("--one", nargs=2, metavar=("CELL", "RESULTS"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:  # a fresh process per cell, so getrusage's maximum is this cell's alone
        print(measure(*args.one))
        return
    print(f"{'cell':<62} {'verdict':<8} {'wall s':>7} {'peak MiB':>9}")
    with tempfile.TemporaryDirectory(prefix="bench-replay-") as results:
        for cell in args.cells:
            row = subprocess.run(
                [sys.executable, "-m", "bench.replay_cells", "--one", cell, results],
                capture_output=True,
                text=True,
                check=False,
            )
            print(row.stdout.strip() or f"{cell:<62} error    {row.stderr.strip()[-200:]}")


if __name__ == "__main__":
    main()
