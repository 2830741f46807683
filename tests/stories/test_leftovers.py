"""A harness killed outright (SIGKILL) leaves its product running; the next run or `harness clean` removes it.

Teardown in ``finally`` and ``atexit`` never runs after SIGKILL, so cleaning up
depends on the labelled run folder alone (``harness.running.ownership``).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from harness.core.verdicts import Verdict
from harness.running.ownership import OWNED_ROOT_NAME
from tests.needs import PLAYS_CELLS, marked
from tests.stories.harness_runs import attempts, harness_run, processes_naming, run_temp, wait_for


def start_and_kill_mid_story(results: Path) -> None:
    """Start build-revise slowly, wait for the agent's runner, then SIGKILL the harness process alone."""
    temp = run_temp(results)
    temp.mkdir(parents=True, exist_ok=True)
    command = [
        sys.executable,
        "-m",
        "harness.cli",
        "run",
        "--id",
        "build-revise",
        "--results",
        str(results),
        "--campaign",
        "killed",
        "--pace",
        "0.5",
    ]
    harness = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, "TMPDIR": str(temp)}
    )
    wait_for(
        lambda: [p for p in processes_naming(temp) if "--workspace" in " ".join(p.info["cmdline"] or [])], "a runner"
    )
    harness.send_signal(signal.SIGKILL)
    harness.wait(10)
    # The premise: the product outlived its harness, and so did the run's folder.
    assert any("testbed" in " ".join(p.info["cmdline"] or []) for p in processes_naming(temp))
    assert any((temp / OWNED_ROOT_NAME).iterdir())


@marked(*PLAYS_CELLS)
def test_the_next_run_removes_what_a_killed_run_left(tmp_path: Path) -> None:
    start_and_kill_mid_story(tmp_path)
    done = harness_run(tmp_path, "--id", "build-revise")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "removed what a killed run left" in done.stdout
    assert "left behind" not in done.stdout, "a run that ends normally leaves nothing (its forkserver neither)"
    assert [record.verdict for record in attempts(tmp_path)] == [Verdict.PASSED]
    assert processes_naming(run_temp(tmp_path)) == []
    assert list((run_temp(tmp_path) / OWNED_ROOT_NAME).iterdir()) == []


@marked(*PLAYS_CELLS)
def test_harness_clean_says_what_it_removed(tmp_path: Path) -> None:
    start_and_kill_mid_story(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "harness.cli", "clean"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "TMPDIR": str(run_temp(tmp_path))},
    )
    assert done.returncode == 0, done.stderr
    assert "1 folder(s) of dead runs removed" in done.stdout and "process(es) ended" in done.stdout
    assert processes_naming(run_temp(tmp_path)) == []
    assert list((run_temp(tmp_path) / OWNED_ROOT_NAME).iterdir()) == []
