"""Two cells at once through `harness run --max-parallel 2`: real Chromium, real testbed, real oracle container.

Each xdist worker must load the harness plugin, read the same settings (same
campaign) and start its own product instance; the controller prints one
progress line per cell and one summary.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from harness.core.verdicts import Verdict
from tests.needs import PLAYS_CELLS, marked
from tests.stories import shared_plays
from tests.stories.harness_runs import attempts, ctrl_c, processes_naming, run_temp, wait_for

CELLS = (
    "everyday-workflows-scripted.scripted.local.build-revise",
    "everyday-workflows-scripted.scripted.local.stop-redirect",
)


@marked(*PLAYS_CELLS)
def test_two_cells_run_at_once_each_with_its_own_product_and_package(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The session's build-revise play (tests/stories/shared_plays.py): its two cells, local and in the container
    environment, in one `harness run --max-parallel 2`; that play asserts no product process outlived the run."""
    played = shared_plays.build_revise(tmp_path_factory)
    results, stdout = played.results, played.stdout
    cells = shared_plays.BUILD_REVISE
    assert "left behind" not in stdout, "each worker ends its own helpers (the testbed's forkserver)"
    for cell in cells:
        assert f"passed                 [scripted] {cell}" in stdout
    progress = [line for line in stdout.splitlines() if re.match(r"\[\d/2\] ", line)]
    assert len(progress) == 2 and {line.split()[2] for line in progress} == set(cells), stdout

    records = {record.cell.execution_id: record for record in attempts(results)}
    assert set(records) == set(cells)
    assert {record.campaign for record in records.values()} == {"test"}
    assert all(record.verdict is Verdict.PASSED for record in records.values())
    first, second = records.values()
    assert first.timing.started_at < second.timing.ended_at and second.timing.started_at < first.timing.ended_at, (
        "the two cells did not run at the same time"
    )

    ports = set()
    for cell, record in records.items():
        package = results / "test" / cell / record.attempt
        assert record.checks and all(check.passed for check in record.checks)
        assert all(zipfile.is_zipfile(package / download.path) for download in record.downloads)
        assert {download.phase for download in record.downloads} == {"build", "revision", "build-again"}
        assert zipfile.is_zipfile(package / "trace.zip")
        assert all((package / shot).stat().st_size > 0 for shot in record.screenshots)
        controller_log = (package / "logs/controller.log").read_text()
        ports |= set(re.findall(r"starting on http://127\.0\.0\.1:(\d+)", controller_log))
    assert len(ports) == 2, f"the cells shared a product instance: {ports}"
    assert (results / "test" / "summary.json").is_file()


@marked(*PLAYS_CELLS)
def test_ctrl_c_with_two_workers_leaves_no_product_or_browser_behind(tmp_path: Path) -> None:
    # Both products and both Chromiums keep their data under this TMPDIR: that is how they are recognised.
    temp = run_temp(tmp_path)
    temp.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "harness.cli", "run", "--id", CELLS[0], "--id", CELLS[1], "--max-parallel", "2"]
    command += ["--results", str(tmp_path), "--campaign", "test", "--pace", "0.5"]
    env = {**os.environ, "TMPDIR": str(temp)}
    harness = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)

    def both_runners() -> bool:
        return len([p for p in processes_naming(temp) if "--workspace" in " ".join(p.info["cmdline"] or [])]) >= 2

    wait_for(both_runners, "a runner in each worker's product", timeout=120)
    output = ctrl_c(harness)
    assert harness.returncode != 0, output
    records = attempts(tmp_path)
    assert {record.cell.execution_id for record in records} <= set(CELLS)
    interrupted = [r for r in records if r.verdict is Verdict.INFRASTRUCTURE_FAILED and "interrupted" in r.reason]
    assert interrupted, output
    left = [process.info["cmdline"] for process in processes_naming(temp)]
    assert left == [], f"processes of a product or a browser outlived Ctrl-C: {left}"
