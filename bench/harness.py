"""Benchmark: the harness's own overhead on the scripted build-revise cell.

Overhead is an attempt's wall time minus the time the product's agent runs
took (both from attempt.json): browser, product start-up, oracle grades,
evidence. Prints medians over repeated runs; never asserts a time.

The goal is in seconds, and seconds depend on how busy the machine is. So
between the runs the benchmark also times the floor no harness can go
under: a bare Chromium launch with one page, and one bare hardened `docker
run` of the oracle's image (what a grade's container costs). The ratio of
the overhead to that floor, measured in the same run, is the figure that
shows whether the harness or the machine got slower.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

from playwright.sync_api import sync_playwright
from pydantic import TypeAdapter

from bench.arguments import cell_id, count
from bench.entry import run_benchmark
from bench.oracle import bare_docker_run_command
from harness.core.product_records import Task
from harness.core.records import AttemptRecord
from harness.running.browser import launch_options
from oracle import image
from oracle.sandbox import SandboxLimits

TASKS = TypeAdapter(list[Task])

GOAL_OVERHEAD_S = 3.0
GOAL_FLOOR_RATIO = 2.0
"""Issue 52: the harness's overhead at most twice the floor measured in the same run."""


class Overhead(NamedTuple):
    """Where an attempt's overhead is: every moment no agent run was active, by when it falls."""

    before: float  # from the attempt's start to its first run's start: the product, the browser, the first steps
    between: float  # the gaps between runs: the page showing the run's end, the person's next steps
    after: float  # from the last run's end to the attempt's end: the last looks, concluding, closing


def overhead_of(record: AttemptRecord, folder: Path) -> Overhead | None:
    """The overhead split by the run spans the package's task snapshot holds (None: no run recorded)."""
    tasks = TASKS.validate_json((folder / "snapshots" / "tasks.json").read_bytes())
    spans = sorted(
        (datetime.fromisoformat(run.started_at), datetime.fromisoformat(run.ended_at))
        for task in tasks
        for run in task.runs
        if run.started_at and run.ended_at
    )
    if not spans:
        return None
    gaps, reach = 0.0, spans[0][1]
    for start, end in spans[1:]:
        gaps += max(0.0, (start - reach).total_seconds())
        reach = max(reach, end)
    return Overhead(
        before=(spans[0][0] - record.timing.started_at).total_seconds(),
        between=gaps,
        after=(record.timing.ended_at - reach).total_seconds() if record.timing.ended_at else 0.0,
    )


def run_once(results: Path, campaign: str, case: str) -> tuple[AttemptRecord, float, Overhead | None]:
    """One `harness run` as a user types it; returns its record, the whole command's wall time and where its
    overhead was."""
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "harness.cli", "run", "--id", case, "--results", str(results), "--campaign", campaign],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    command_s = time.perf_counter() - started
    [path] = results.glob(f"{campaign}/*/*/attempt.json")
    record = AttemptRecord.model_validate_json(path.read_text())
    return record, command_s, overhead_of(record, path.parent)


def browser_floor() -> float:
    """Seconds to start Playwright, launch Chromium as the harness does, open one page and close it."""
    started = time.perf_counter()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(**launch_options(playwright.chromium))
        browser.new_page().goto("about:blank")
        browser.close()
    return time.perf_counter() - started


def container_floor(image_id: str) -> float:
    """Seconds for one bare hardened `docker run` of the oracle's image (`python3 -c pass`)."""
    started = time.perf_counter()
    subprocess.run(bare_docker_run_command(image_id, SandboxLimits()), capture_output=True, check=True)
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.harness", description=__doc__)
    parser.add_argument("--repetitions", type=count, default=5)
    parser.add_argument("--case", type=cell_id, default="build-revise")
    args = parser.parse_args(argv)
    records, commands, floors, where = [], [], [], []
    load_before = os.getloadavg()[0]
    image_id = image.resolve(image.engine(), None).id
    with tempfile.TemporaryDirectory(prefix="everyday-bench-") as folder:
        for number in range(args.repetitions):
            record, command_s, split = run_once(Path(folder), f"bench-{number}", args.case)
            records.append(record)
            where += [split] if split else []
            commands.append(command_s)
            floors.append(browser_floor() + container_floor(image_id))
            print(
                f"  run {number + 1}: {record.verdict.value}, command {command_s:.2f} s, attempt {record.timing.wall_s:.2f} s, "
                f"agent runs {record.timing.agent_run_s:.2f} s, overhead {record.timing.harness_overhead_s:.2f} s"
            )
    wall = statistics.median(r.timing.wall_s or 0.0 for r in records)
    agent = statistics.median(r.timing.agent_run_s or 0.0 for r in records)
    overhead = statistics.median(r.timing.harness_overhead_s or 0.0 for r in records)
    passed = sum(r.verdict.value == "passed" for r in records)
    print(f"{args.case} (scripted), {args.repetitions} runs, {passed} passed")
    print(
        f"load average (1 min) before / after: {load_before:.1f} / {os.getloadavg()[0]:.1f} (other work skews every figure)"
    )
    print(f"median attempt wall time: {wall:.2f} s; median agent run time: {agent:.2f} s")
    verdict = "met" if overhead <= GOAL_OVERHEAD_S else "NOT met"
    command_overhead = statistics.median(
        c - (r.timing.agent_run_s or 0.0) for r, c in zip(records, commands, strict=True)
    )
    print(f"median harness overhead inside the attempt: {overhead:.2f} s (goal <= {GOAL_OVERHEAD_S:.0f} s: {verdict})")
    floor = statistics.median(floors)
    print(
        f"median floor (bare Chromium launch with one page + one bare hardened docker run, timed between the runs):"
        f" {floor:.2f} s; harness overhead / floor: {overhead / floor:.2f}x"
        f" (goal <= {GOAL_FLOOR_RATIO:.1f}x: {'met' if overhead / floor <= GOAL_FLOOR_RATIO else 'NOT met'})"
    )
    if where:
        print(
            "where the overhead is (median seconds with no agent run active): before the first run"
            f" {statistics.median(w.before for w in where):.2f}, between runs"
            f" {statistics.median(w.between for w in where):.2f}, after the last run"
            f" {statistics.median(w.after for w in where):.2f}"
        )
    print(f"median overhead of the whole command (pytest and browser start-up included): {command_overhead:.2f} s")
    print(
        "where the attempt's time goes (median seconds per phase; the agent's own time is the rest; phases overlap:"
        " the oracle grades beside the story and 'oracle wait' is what the attempt still waited for it, the product"
        " starts beside the browser and stops beside the trace):"
    )
    for phase in sorted({phase for r in records for phase in r.timing.phases}):
        print(f"  {phase:<14} {statistics.median(r.timing.phases.get(phase, 0.0) for r in records):6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(run_benchmark(main))
