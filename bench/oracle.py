"""`python -m bench.oracle`: what a full grade costs compared with the cheapest possible hardened container.

Both are measured interleaved in one run so engine warm-up and machine load
affect them alike; the ratio is the figure to watch (goal <= 2.5).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel

from calibration.zips import zip_bytes
from oracle import grade, image, tasks
from oracle.sandbox import SandboxLimits, hardened_container, wait_bounded

BENCH_TASK = "slugify"
BENCH_MODE = "separator+max-length"
RATIO_GOAL = 2.5


class BenchResult(BaseModel):
    repetitions: int
    image: str
    grade_s: list[float]
    bare_s: list[float]

    @property
    def grade_median(self) -> float:
        return statistics.median(self.grade_s)

    @property
    def bare_median(self) -> float:
        return statistics.median(self.bare_s)

    @property
    def ratio(self) -> float:
        return self.grade_median / self.bare_median

    def report(self) -> str:
        verdict = "within" if self.ratio <= RATIO_GOAL else "OVER"
        return "\n".join([
            f"image                      {self.image}",
            f"repetitions                {self.repetitions}",
            f"full {BENCH_TASK} {BENCH_MODE} grade  median {self.grade_median:.3f} s",
            f"bare hardened python3 -c pass  median {self.bare_median:.3f} s",
            f"ratio                      {self.ratio:.2f} ({verdict} the goal of {RATIO_GOAL})",
        ])


def _bare_run(client, image_id: str) -> float:
    """One `python3 -c pass` in a container hardened exactly like a grade's, created, waited for and removed the same way."""
    started = time.perf_counter()
    with hardened_container(client, image_id, ["python3", "-c", "pass"], SandboxLimits()) as container:
        wait_bounded(container, SandboxLimits())
    return time.perf_counter() - started


def bench(repetitions: int = 7, image_ref: str | None = None) -> BenchResult:
    """Time full grades of the task's reference solution and bare hardened runs, interleaved."""
    client = image.engine()
    chosen = image.resolve(client, image_ref)
    grades: list[float] = []
    bares: list[float] = []
    with tempfile.TemporaryDirectory(prefix="everyday-bench-") as folder:
        good = Path(folder) / "good.zip"
        good.write_bytes(zip_bytes(tasks.load(BENCH_TASK).reference_solution()))
        _bare_run(client, chosen.id)  # warm-up, not counted
        for _ in range(repetitions):
            bares.append(_bare_run(client, chosen.id))
            started = time.perf_counter()
            result = grade(good, BENCH_MODE, BENCH_TASK, image_ref=chosen.id, client=client)
            grades.append(time.perf_counter() - started)
            if not result.passed:
                raise RuntimeError(f"the reference solution failed the benchmark grade: {result.deciding_check}")
    return BenchResult(repetitions=repetitions, image=chosen.id, grade_s=grades, bare_s=bares)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.oracle", description=__doc__)
    parser.add_argument("--repetitions", type=int, default=7)
    parser.add_argument("--image", default=None)
    args = parser.parse_args(argv)
    try:
        print(bench(repetitions=args.repetitions, image_ref=args.image).report())
    except image.CannotGrade as error:
        print(f"bench: cannot grade: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
