"""`python -m bench.report`: how long `harness report` takes over 1,000 attempts, and the index's weight.

Prints figures, asserts nothing: a timed test would be flaky on a busy CI
machine, a printed figure is a fact to compare. Two build times are
reported because they answer different questions: the *cold* build makes
every thumbnail (a fresh clone, or a new report folder), the *warm* builds
reuse cached thumbnails (rebuilding after each campaign, the common case);
the goal (at most 10 s) is for the warm median. The index weight counts the
HTML, its stylesheet and script, and every image it embeds (thumbnails,
never full screenshots). Then the timelines: what building them adds to a
build, and how long attempts with 2,000 and 10,000 events take to load in
Chromium and to toggle a lane.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

from bench.arguments import count, output_folder
from bench.entry import run_benchmark
from bench.timeline_load import BUILD_GOAL_S, measure_load, timelines_seconds
from harness.core import registry
from harness.core.verdicts import Verdict
from harness.results.report import page_cache
from harness.results.report.build import build_report
from harness.results.report.fixture_events import add_events, add_model_calls
from harness.results.report.fixtures import EPOCH, write_attempt

GOAL_S = 10.0
RETIRED_CASES = ("recover-runner", "recover-runner-safe", "recover-runner-uncertain", "hire-reuse-draft")
# Mostly passes, every other class present, as a real campaign history looks.
VERDICT_CYCLE = (
    [Verdict.PASSED] * 12 + [Verdict.FAILED] * 3 + [Verdict.INFRASTRUCTURE_FAILED, Verdict.UNEXERCISED, Verdict.SKIPPED]
)


def fixture_cells() -> list[str]:
    cells = [cell.execution_id for cell in registry.catalog().cells()]
    return cells + [f"everyday-workflows-scripted.scripted.local.{case}" for case in RETIRED_CASES]


def generate(results: Path, attempts: int, screenshots: int, events: int) -> None:
    """ATTEMPTS packages spread over every catalog cell plus retired ones, one campaign per round, each with about
    EVENTS timeline events (API calls, record samples and a few model calls, as a real attempt keeps them)."""
    cells = fixture_cells()
    for number in range(attempts):
        campaign, cell = divmod(number, len(cells))
        verdict = VERDICT_CYCLE[number % len(VERDICT_CYCLE)]
        started = EPOCH + timedelta(minutes=number)
        folder = write_attempt(
            results,
            f"bench-{campaign:03d}",
            cells[cell],
            f"1-{number:06x}",
            verdict,
            started_at=started,
            screenshots=screenshots,
        )
        if events:
            add_events(folder, events, started)
            add_model_calls(folder, max(events // 20, 1), started)


def timed_build(folder: Path, render_all: bool = False) -> tuple[float, float]:
    """One build's wall seconds and this process's CPU seconds (on a shared machine the CPU figure is the steadier);
    ``render_all`` forgets the kept pages first, so every attempt page and timeline is made again."""
    if render_all:
        shutil.rmtree(folder / "report" / page_cache.CACHE, ignore_errors=True)
    cpu = time.process_time()
    seconds = build_report([folder / "results"], folder / "report").seconds
    return seconds, time.process_time() - cpu


def page_weight(index: Path) -> int:
    """Bytes a browser fetches to show the index: the HTML and every local file it references."""
    html = index.read_text()
    referenced = set(re.findall(r'(?:src|href)="(assets/[^"]+|thumbs/[^"]+)"', html))
    return len(html.encode()) + sum((index.parent / ref).stat().st_size for ref in referenced)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.report", description=__doc__)
    parser.add_argument("--attempts", type=count, default=1000)
    parser.add_argument("--screenshots", type=count, default=4, help="screenshots per attempt (1280x900 PNG)")
    parser.add_argument("--repetitions", type=count, default=3, help="warm builds to take the median of")
    parser.add_argument(
        "--events",
        type=int,
        default=300,
        help="timeline events per attempt (a real recover-controller attempt keeps a few hundred)",
    )
    parser.add_argument(
        "--timeline-events",
        type=count,
        nargs="*",
        default=[2_000, 10_000],
        help="events of the attempts whose page load is timed in Chromium",
    )
    parser.add_argument("--loads", type=count, default=5, help="page loads in Chromium to take the medians of")
    parser.add_argument(
        "--keep", type=output_folder, help="generate into this folder and keep it (default: a temporary one)"
    )
    args = parser.parse_args(argv)
    folder = args.keep or Path(tempfile.mkdtemp(prefix="everyday-report-bench-"))
    try:
        started = time.perf_counter()
        generate(folder / "results", args.attempts, args.screenshots, args.events)
        print(
            f"generated {args.attempts} attempt packages ({args.screenshots} screenshots, about {args.events} timeline"
            f" events each) in {time.perf_counter() - started:.1f} s"
        )
        cold = build_report([folder / "results"], folder / "report")
        warm = [timed_build(folder) for _ in range(args.repetitions)]
        rendered = [timed_build(folder, render_all=True) for _ in range(args.repetitions)]
        median = statistics.median(seconds for seconds, _ in warm)
        index = page_weight(cold.index)
        print(f"first build (thumbnails made at capture, as the harness does): {cold.seconds:.2f} s")
        print(
            f"warm build median of {args.repetitions} (thumbnails and unchanged pages kept): {median:.2f} s"
            f"  [{', '.join(f'{s:.2f} s, {cpu:.2f} CPU-s' for s, cpu in warm)}]"
            f"  goal <= {GOAL_S:.0f} s: {'met' if median <= GOAL_S else 'MISSED'}"
        )
        print(
            f"every page rendered again (as after a harness upgrade), median of {args.repetitions}:"
            f" {statistics.median(seconds for seconds, _ in rendered):.2f} s"
            f"  [{', '.join(f'{s:.2f} s, {cpu:.2f} CPU-s' for s, cpu in rendered)}]"
        )
        print(
            f"index page weight: {index} bytes ({index / 1024:.0f} KiB) with thumbnails; index.html alone {cold.index.stat().st_size} bytes"
        )
        full = sum(p.stat().st_size for p in (folder / "results").rglob("screenshots/*.png"))
        print(f"for scale: all full-size screenshots together are {full / 1024 / 1024:.0f} MiB")
        timelines, timelines_cpu = timelines_seconds(folder / "results", args.repetitions)
        rendered_cpu = statistics.median(cpu for _, cpu in rendered)
        print(
            f"of a build that renders every page, the timelines of all {args.attempts} attempts (built, rows written,"
            f" search documents made), median of {args.repetitions}: {timelines:.2f} s, {timelines_cpu:.2f} CPU-s"
            f" ({timelines_cpu / rendered_cpu:.0%} of that build's {rendered_cpu:.2f} CPU-s);"
            f" goal <= {BUILD_GOAL_S:.0f} s: {'met' if timelines_cpu <= BUILD_GOAL_S else 'MISSED'}"
        )
        print(f"search page: {(folder / 'report' / 'search.html').stat().st_size // 1024} KiB")
        for events in args.timeline_events:
            print(measure_load(folder, events, args.loads))
    finally:
        if args.keep is None:
            shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(run_benchmark(main))
