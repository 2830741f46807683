"""Wall time and peak memory of one build-revise per agent CLI against the replay, beside the scripted agent's.

``python -m bench.replay_cells``. Each cell is a real ``harness run`` in a
process of its own (browser, product, runner, CLI, metering proxy, replay
server), one after another so they never share the machine. Wall time is the
whole command; peak memory is the largest sum over the command's whole
process tree (the harness, Chromium, the product, its runners, the agent CLIs
and what they start), sampled while it runs (``bench.process_tree``): peak
resident (RSS, shared pages counted once per process) and peak proportional
(PSS, shared pages split, the tree's real footprint).
Each cell runs ``--repeat`` times (default 3) and the table prints the
median wall time and peak memory, with the range, because one run on a
shared machine is noise; a run whose verdict is not ``passed`` is shown and
kept out of the medians.
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.arguments import cell_id, count
from bench.entry import run_benchmark
from bench.process_tree import TreePeak, run_measured
from harness.results.epochs import ending
from harness.results.packages import campaign_package_folders, read_package
from harness.running.ownership import outside_run_folders

OUTPUT_TAIL = 15
CELLS = (
    "everyday-workflows-scripted.scripted.local.build-revise",
    "everyday-workflows-replay.replay-codex.local.build-revise",
    "everyday-workflows-replay.replay-claude.local.build-revise",
    "everyday-workflows-replay.replay-opencode.local.build-revise",
)


class Sample(TreePeak):
    """One run of one cell, as its measuring process prints it (JSON on one line)."""

    cell: str
    verdict: str


def measure(cell: str, results: str) -> Sample:
    """One cell, its whole process tree sampled (run as ``--one``: this process becomes the tree's subreaper).

    The verdict is read from the attempt's own record (a campaign per run), never from the terminal's text.
    """
    campaign = f"bench-{secrets.token_hex(4)}"
    output = Path(results) / f"{campaign}.out"
    command = [sys.executable, "-m", "harness.cli", "run", "--id", cell, "--results", results, "--campaign", campaign]
    peak = run_measured(command, output, env={**os.environ, "TMPDIR": str(outside_run_folders())})
    folders = campaign_package_folders(Path(results) / campaign)
    endings = [ending(record) for folder in folders if (record := read_package(Path(results), folder).record)]
    if not endings:
        tail = "\n  ".join(output.read_text(errors="replace").splitlines()[-OUTPUT_TAIL:])
        print(f"{cell}: no attempt recorded (exit {peak.exit_status}); its output ended:\n  {tail}", file=sys.stderr)
    return Sample(cell=cell, verdict=",".join(endings) or "no-attempt", **peak.model_dump())


def median_range(values: list[float], decimals: int = 0) -> str:
    return f"{statistics.median(values):.{decimals}f} ({min(values):.0f}-{max(values):.0f})"


def row(cell: str, samples: list[Sample]) -> str:
    """Median (min-max) of the passed runs; the verdicts of all of them, and any leftover processes."""
    passed = [sample for sample in samples if sample.verdict == "passed"]
    verdicts = ",".join(sample.verdict for sample in samples) or "error"
    left = sum(sample.leftovers for sample in samples)
    tail = f"  {left} process(es) left behind" if left else ""
    if not passed:
        return f"{cell:<62} {verdicts:<22} {'-':>15} {'-':>15} {'-':>15} {'-':>9}{tail}"
    wall = median_range([s.wall_s for s in passed], 1)
    rss = median_range([s.peak_rss_mib for s in passed])
    pss = median_range([s.peak_pss_mib for s in passed])
    count = statistics.median(s.peak_processes for s in passed)
    return f"{cell:<62} {verdicts:<22} {wall:>15} {rss:>15} {pss:>15} {count:>9.0f}{tail}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.replay_cells", description=__doc__)
    parser.add_argument("--cells", nargs="*", type=cell_id, default=list(CELLS))
    parser.add_argument("--repeat", type=count, default=3, help="runs per cell; the table shows medians (default 3)")
    parser.add_argument("--one", nargs=2, metavar=("CELL", "RESULTS"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:  # a fresh process per cell: the subreaper of that cell's tree alone
        print(measure(*args.one).model_dump_json())
        return
    print(f"median of {args.repeat} run(s) per cell, one cell at a time")
    print("peak memory: the largest sum over the cell's whole process tree (RSS counts shared pages per process)")
    print(f"{'cell':<62} {'verdicts':<22} {'wall s':>15} {'tree RSS MiB':>15} {'tree PSS MiB':>15} {'processes':>9}")
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
                if done.stderr.strip():
                    print(done.stderr.strip(), file=sys.stderr)
                if done.returncode != 0 or not done.stdout.strip():
                    print(f"{cell}: measuring failed (exit {done.returncode})", file=sys.stderr)
                    continue
                samples.append(Sample.model_validate_json(done.stdout.strip().splitlines()[-1]))
            print(row(cell, samples), flush=True)


if __name__ == "__main__":
    sys.exit(run_benchmark(main))
