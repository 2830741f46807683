"""Real reproductions against the pinned Paperclip, as `make findings` runs them (end to end)."""

from __future__ import annotations

import subprocess

import pytest

from everyday_paperclip.findings.runner import FINDINGS_DIR, REPRODUCED, run_one
from tests.needs import marked


@marked("product")
def test_the_null_exit_code_reproduction_shows_its_defect_and_leaves_nothing_behind(
    capfd: pytest.CaptureFixture[str],
) -> None:
    outcome = run_one(FINDINGS_DIR / "null_exit_code_succeeds", "recover-controller: lifecycle.runs-succeeded")
    out = capfd.readouterr().out
    assert outcome.verdict == REPRODUCED, out
    assert "signal='SIGKILL'" in out and "status='succeeded'" in out
    _nothing_left_running()


@marked("product")
def test_the_declined_action_reproduction_runs_the_call_a_person_rejected(capfd: pytest.CaptureFixture[str]) -> None:
    """The card is rejected, the review queue still lists its action request and approves it: the service gets the
    call (what `decision.declined-stays-declined` names on the service-decline cell)."""
    outcome = run_one(FINDINGS_DIR / "declined_action_still_approvable", "service-decline")
    out = capfd.readouterr().out
    assert outcome.verdict == REPRODUCED, out
    assert "card status 'rejected'" in out and "approving it there answered 200" in out
    assert "0 create_document call(s) before that approval, 1 in all" in out
    _nothing_left_running()


@marked("product")
def test_the_hot_restart_reproduction_shows_both_clis_cut_off_and_leaves_nothing_behind(
    capfd: pytest.CaptureFixture[str],
) -> None:
    outcome = run_one(FINDINGS_DIR / "hot_restart_severs_cli_output", "recover-controller: restart.same-run")
    out = capfd.readouterr().out
    assert outcome.verdict == REPRODUCED, out
    assert out.count("errno 32 (Broken pipe)") >= 2 and "adopted both runs" in out
    _nothing_left_running()


def _nothing_left_running() -> None:
    listing = subprocess.run(["ps", "-eo", "args="], capture_output=True, text=True, check=True).stdout
    assert "paperclip-repro-" not in listing, "a process of the reproduction's instance outlived it"
