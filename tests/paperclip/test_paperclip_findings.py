"""Real reproductions against the pinned Paperclip, as `make findings` runs them (end to end)."""

from __future__ import annotations

import subprocess

import pytest

from harness.products.paperclip.findings.runner import FINDINGS_DIR, REPRODUCED, run_one


def test_the_null_exit_code_reproduction_shows_its_defect_and_leaves_nothing_behind(
    capfd: pytest.CaptureFixture[str],
) -> None:
    outcome = run_one(FINDINGS_DIR / "null_exit_code_succeeds", "recover-controller: lifecycle.runs-succeeded")
    out = capfd.readouterr().out
    assert outcome.verdict == REPRODUCED, out
    assert "signal='SIGKILL'" in out and "status='succeeded'" in out
    listing = subprocess.run(["ps", "-eo", "args="], capture_output=True, text=True, check=True).stdout
    assert "paperclip-repro-" not in listing, "a process of the reproduction's instance outlived it"


def test_the_hot_restart_reproduction_shows_both_clis_cut_off_and_leaves_nothing_behind(
    capfd: pytest.CaptureFixture[str],
) -> None:
    outcome = run_one(FINDINGS_DIR / "hot_restart_severs_cli_output", "recover-controller: restart.same-run")
    out = capfd.readouterr().out
    assert outcome.verdict == REPRODUCED, out
    assert out.count("errno 32 (Broken pipe)") >= 2 and "adopted both runs" in out
    listing = subprocess.run(["ps", "-eo", "args="], capture_output=True, text=True, check=True).stdout
    assert "paperclip-repro-" not in listing, "a process of the reproduction's instance outlived it"
