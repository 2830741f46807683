"""`python -m bench.replay_cells`, as the docs show it, in its short form: a row of real figures, not an empty one.

Run from a clean clone's own paths, so a measured `harness run` nested deep in labelled folders still finds its
product's Unix socket and reads its verdict from the records, not the terminal.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.stories.harness_runs import run_temp

ROOT = Path(__file__).resolve().parents[2]
FIGURE = r"\d+(?:\.\d+)? \(\d+-\d+\)"


@pytest.mark.e2e
def test_replay_cells_prints_the_figures_of_a_passed_cell(tmp_path: Path) -> None:
    temp = run_temp(tmp_path)
    temp.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [sys.executable, "-m", "bench.replay_cells", "--cells", "build-revise", "--repeat", "1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "TMPDIR": str(temp)},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    [row] = [line for line in done.stdout.splitlines() if line.startswith("build-revise ")]
    assert re.fullmatch(rf"build-revise +passed +{FIGURE} +{FIGURE} +{FIGURE} +\d+", row), done.stdout + done.stderr


def test_a_measured_run_starts_outside_every_labelled_folder() -> None:
    from harness.running.ownership import outside_run_folders

    nested = Path("/tmp/everyday-evals/1-2/everyday-evals/3-4/bench-replay-x")
    assert outside_run_folders(nested) == Path("/tmp")
    assert outside_run_folders(Path("/var/tmp")) == Path("/var/tmp")
