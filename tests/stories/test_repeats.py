"""Repeated attempts, a paired comparison against a product defect, and a campaign resumed after a real SIGKILL,
all through the real `harness run` and `harness compare` commands on the testbed's scripted cells."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from harness.core.records import AttemptRecord
from harness.core.verdicts import Verdict
from harness.results.epochs import epoch_ends
from tests.needs import PLAYS_CELLS, marked
from tests.stories.harness_runs import attempts, harness_run, run_temp, wait_for

BUILD_REVISE = "everyday-workflows-scripted.scripted.local.build-revise"
STOP_REDIRECT = "everyday-workflows-scripted.scripted.local.stop-redirect"
DEFECT = "stop-without-signal"
"""Breaks Stop (stop-redirect) and nothing build-revise does."""


def _harness(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness.cli", *args], capture_output=True, text=True, timeout=120)


@marked(*PLAYS_CELLS)
def test_a_defect_is_a_regression_on_the_cells_it_breaks_and_no_change_elsewhere(tmp_path: Path) -> None:
    for campaign, defect in (("normal", ()), ("broken", ("--product-defect", DEFECT))):
        done = harness_run(tmp_path, "--id", BUILD_REVISE, "--id", STOP_REDIRECT, "--attempts", "2", *defect)
        assert done.returncode == (0 if not defect else 1), done.stdout + done.stderr
        (tmp_path / "test").rename(tmp_path / campaign)
    compared = _harness("compare", "normal", "broken", "--results", str(tmp_path), "--json")
    assert compared.returncode == 0, compared.stderr
    comparison = json.loads(compared.stdout)
    directions = {cell["execution_id"]: cell["direction"] for cell in comparison["cells"]}
    assert directions == {STOP_REDIRECT: "regressed", BUILD_REVISE: "unchanged"}
    assert comparison["counts"]["regressed"] == 1 and comparison["test"]["worse"] == 1
    assert any("settings.product_defect" in warning for warning in comparison["warnings"])
    table = _harness("compare", "normal", "broken", "--results", str(tmp_path)).stdout
    assert "regressed" in table and "p = 1" in table


def _complete(record: AttemptRecord) -> bool:
    return record.verdict is Verdict.PASSED and not record.interrupted


@marked(*PLAYS_CELLS)
def test_a_campaign_killed_half_way_resumes_to_one_complete_set(tmp_path: Path) -> None:
    temp = run_temp(tmp_path)
    temp.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "harness.cli", "run", "--results", str(tmp_path), "--campaign", "test"]
    harness = subprocess.Popen(
        [*command, "--id", "build-revise", "--attempts", "3"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "TMPDIR": str(temp)},
    )
    cell = tmp_path / "test" / BUILD_REVISE
    try:
        # Half way: the first attempt is on disk and the second has begun.
        wait_for(lambda: len(attempts(tmp_path)) == 1 and len(list(cell.iterdir())) == 2, "a second attempt", 300)
    finally:
        harness.send_signal(signal.SIGKILL)
        harness.wait(10)
    first = attempts(tmp_path)
    assert len(first) == 1 and _complete(first[0])
    first_bytes = (cell / first[0].attempt / "attempt.json").read_bytes()

    resumed = harness_run(tmp_path, "--resume", "test")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "resuming campaign test" in resumed.stdout
    ends = epoch_ends(attempts(tmp_path))
    assert len(ends) == 3 and all(_complete(end) for end in ends)
    assert (cell / first[0].attempt / "attempt.json").read_bytes() == first_bytes, "a finished attempt ran again"
    assert len(list(cell.iterdir())) == 4  # the three attempts, and the killed one's package kept as it was left

    again = harness_run(tmp_path, "--resume", "test")
    assert again.returncode == 0 and len(attempts(tmp_path)) == 3, "nothing is missing any more"
