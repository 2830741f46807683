"""`python -m bench.oracle`: what a grade costs compared with the cheapest possible hardened container.

Four figures, measured interleaved in one run so engine warm-up and machine
load affect them alike:

- bare `docker run`: the docker command line running `python3 -c pass` in
  the same image with the same hardening: what a user would compare with;
- bare in-process: the same container created, started, waited for and
  removed through the engine API, as a grade does it;
- a full grade in-process (`oracle.grade`), as stories call it;
- a full grade from the command line (`python -m oracle grade ...`), as a
  user runs it: the in-process grade plus interpreter start-up and imports;
- a batch of BATCH grades with as many workers (`oracle.grade_batch`), set
  against BATCH single grades one after another: what running a batch's
  containers at once saves (a test sees them overlap on the engine; how
  much that is worth is this figure).

The ratios are the figures to watch: the command line against the bare
`docker run` (goal <= 1.5) and the in-process grade against the bare
in-process run (goal <= 2.5). Medians; nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from bench.arguments import count
from bench.entry import run_benchmark
from calibration.zips import zip_bytes
from oracle import GradeJob, GradeOptions, grade, grade_batch, image, tasks
from oracle.sandbox import USER, SandboxLimits, hardened_container, wait_bounded

BENCH_TASK = "slugify"
BENCH_MODE = "separator+max-length"
IN_PROCESS_GOAL = 2.5
CLI_GOAL = 1.5
"""Issue 52: one grade from the command line at most 1.5 times a bare hardened `docker run` of the same image."""
BATCH = 3


class BenchResult(BaseModel):
    """Every timing of one benchmark run, in seconds, one list per figure."""

    repetitions: int
    image: str
    load: tuple[float, float]
    """The 1-minute load average before and after: other work on the machine skews every figure."""
    bare_cli_s: list[float]
    bare_s: list[float]
    grade_s: list[float]
    cli_s: list[float]
    batch_s: list[float] = []

    @staticmethod
    def _median(values: list[float]) -> float:
        return statistics.median(values)

    @property
    def in_process_ratio(self) -> float:
        return self._median(self.grade_s) / self._median(self.bare_s)

    @property
    def cli_ratio(self) -> float:
        return self._median(self.cli_s) / self._median(self.bare_cli_s)

    def report(self) -> str:
        def verdict(ratio: float, goal: float) -> str:
            return f"{'within' if ratio <= goal else 'OVER'} the goal of {goal}"

        m = self._median
        return "\n".join(
            [
                f"image                                       {self.image}",
                f"repetitions                                 {self.repetitions}",
                f"load average (1 min) before / after         {self.load[0]:.1f} / {self.load[1]:.1f}",
                f"bare hardened `docker run` python3 -c pass  median {m(self.bare_cli_s):.3f} s",
                f"bare hardened container, engine API         median {m(self.bare_s):.3f} s",
                f"full {BENCH_TASK} {BENCH_MODE} grade, in-process        median {m(self.grade_s):.3f} s",
                f"full {BENCH_TASK} {BENCH_MODE} grade, `python -m oracle` median {m(self.cli_s):.3f} s",
                f"ratio in-process grade / bare API run       {self.in_process_ratio:.2f} ({verdict(self.in_process_ratio, IN_PROCESS_GOAL)})",
                f"ratio command-line grade / bare docker run  {self.cli_ratio:.2f} ({verdict(self.cli_ratio, CLI_GOAL)})",
                *(
                    [
                        f"batch of {BATCH} grades, {BATCH} workers          median {m(self.batch_s):.3f} s",
                        f"ratio batch / {BATCH} grades one after another   {m(self.batch_s) / (BATCH * m(self.grade_s)):.2f}",
                    ]
                    if self.batch_s
                    else []
                ),
            ]
        )


def bare_docker_run_command(image_id: str, limits: SandboxLimits) -> list[str]:
    """`docker run --rm` of `python3 -c pass` with the flags a grade's container gets."""
    return [
        shutil.which("docker") or "docker",
        "run",
        "--rm",
        "--network",
        "none",
        "--read-only",
        "--user",
        USER,
        "--cap-drop",
        "ALL",
        "--security-opt",
        "no-new-privileges",
        "--pids-limit",
        str(limits.pids),
        "--memory",
        str(limits.memory_bytes),
        "--memory-swap",
        str(limits.memory_bytes),
        "--cpus",
        str(limits.nano_cpus / 1e9),
        "--ipc",
        "none",
        "--tmpfs",
        f"/tmp:rw,nosuid,nodev,noexec,size={limits.tmpfs_size},mode=1777",
        "--log-opt",
        f"max-size={limits.log_max_size}",
        "--log-opt",
        "max-file=1",
        image_id,
        "python3",
        "-c",
        "pass",
    ]


def _timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def _run(command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command[:4])} ... exited {done.returncode}: {done.stderr.strip()[-300:]}")


def bench(repetitions: int = 7, image_ref: str | None = None) -> BenchResult:
    """Time the four figures over the task's reference solution, interleaved, after one warm-up of each."""
    load_before = os.getloadavg()[0]
    client = image.engine()
    chosen = image.resolve(client, image_ref)
    limits = SandboxLimits()

    def bare_api() -> None:
        with hardened_container(client, chosen.id, ["python3", "-c", "pass"], limits) as container_id:
            wait_bounded(client, container_id, limits)

    timings: dict[str, list[float]] = {"bare_cli_s": [], "bare_s": [], "grade_s": [], "cli_s": [], "batch_s": []}
    with tempfile.TemporaryDirectory(prefix="everyday-bench-") as folder:
        good = Path(folder) / "good.zip"
        good.write_bytes(zip_bytes(tasks.load(BENCH_TASK).reference_solution()))

        def in_process() -> None:
            result = grade(good, BENCH_MODE, BENCH_TASK, image_ref=chosen.id, client=client)
            if not result.passed:
                raise RuntimeError(f"the reference solution failed the benchmark grade: {result.deciding_check}")

        def batch() -> None:
            jobs = [GradeJob(zip_path=good, mode=BENCH_MODE, task=BENCH_TASK) for _ in range(BATCH)]
            results = grade_batch(jobs, GradeOptions(workers=BATCH, image_ref=chosen.id), client=client)
            if not all(result.passed for result in results):
                raise RuntimeError("the reference solution failed a batch grade")

        figures: dict[str, Callable[[], None]] = {
            "bare_cli_s": lambda: _run(bare_docker_run_command(chosen.id, limits)),
            "bare_s": bare_api,
            "grade_s": in_process,
            "cli_s": lambda: _run(
                [
                    sys.executable,
                    "-m",
                    "oracle",
                    "grade",
                    "--task",
                    BENCH_TASK,
                    "--mode",
                    BENCH_MODE,
                    "--image",
                    chosen.id,
                    str(good),
                ]
            ),
            "batch_s": batch,
        }
        for action in figures.values():  # warm-up, not counted
            action()
        for _ in range(repetitions):
            for name, action in figures.items():
                timings[name].append(_timed(action))
    return BenchResult(repetitions=repetitions, image=chosen.id, load=(load_before, os.getloadavg()[0]), **timings)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.oracle", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repetitions", type=count, default=7)
    parser.add_argument("--image", default=None)
    args = parser.parse_args(argv)
    try:
        print(bench(repetitions=args.repetitions, image_ref=args.image).report())
    except image.CannotGrade as error:
        print(f"bench: cannot grade: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(run_benchmark(main))
