"""Repeated attempts, a paired run against a product defect, and a campaign resumed after a real SIGKILL,
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
DEFECT = "download-other-bytes"
"""Serves other bytes than the agent delivered: build-revise's download checks must catch it."""


def _harness(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness.cli", *args], capture_output=True, text=True, timeout=120)


@marked(*PLAYS_CELLS)
def test_a_paired_run_compares_its_recorded_pairs_and_two_campaigns_compare_as_independent_samples(
    tmp_path: Path,
) -> None:
    done = harness_run(tmp_path, "--id", BUILD_REVISE, "--attempts", "2", "--pair", f"product-defect=,{DEFECT}")
    assert done.returncode == 1, done.stdout + done.stderr  # the defect's half fails, as it must
    assert "harness compare test" in done.stdout
    records = attempts(tmp_path)
    assert len(records) == 4 and len({record.pair.id for record in records if record.pair}) == 2
    compared = _harness("compare", "test", "--results", str(tmp_path), "--json")
    assert compared.returncode == 0, compared.stderr
    (cell,) = json.loads(compared.stdout)["cells"]
    # two pairs, each pass -> fail: seed 003's rule holds, but McNemar's p = 2 / 2^2 = 1/2 is no detected difference
    assert (cell["pairs"]["pass_to_fail"], cell["pairs"]["fail_to_pass"], cell["pairs"]["rule_holds"]) == (2, 0, True)
    assert (cell["p_exact"], cell["direction"]) == ("1/2", "no difference detected")
    assert "failed checks: " in cell_reasons(records, DEFECT), "the defect's half names the check that caught it"

    independent = _harness("compare", "test", "test", "--results", str(tmp_path))
    assert independent.returncode == 2 and "paired campaign" in independent.stderr


def cell_reasons(records: list[AttemptRecord], defect: str) -> str:
    """The reasons of the attempts played with the defect switched on."""
    return " ".join(r.reason for r in records if r.pair and r.pair.variant.endswith(defect))


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
