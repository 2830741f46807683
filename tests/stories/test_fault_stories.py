"""The fault stories end to end: the scripted cell through the real `harness run` (real product,
real Chromium, real oracle container), and the evidence each package must hold."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from calibration.personas import PERSONA_CASES
from harness.core.records import AttemptRecord
from harness.core.verdicts import Verdict
from tests.stories.story_expectations import FAULT_STORIES as STORIES


def run_story(case: str, results: Path) -> tuple[subprocess.CompletedProcess[str], AttemptRecord, Path]:
    done = subprocess.run(
        [sys.executable, "-m", "harness.cli", "run", "--id", case, "--results", str(results), "--campaign", "t"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    [path] = sorted(results.glob("t/*/*/attempt.json"))
    return done, AttemptRecord.model_validate_json(path.read_text()), path.parent


@pytest.mark.parametrize("case", sorted(STORIES))
def test_story_passes_with_the_scripted_agent_and_keeps_its_evidence(case: str, tmp_path: Path) -> None:
    done, record, package = run_story(case, tmp_path)
    assert done.returncode == 0 and record.verdict is Verdict.PASSED, (
        f"{record.verdict}: {record.reason}\n{done.stdout[-2000:]}"
    )
    passed = {check.id for check in record.checks if check.passed}
    assert set(STORIES[case]["checks"]) <= passed
    assert not [check.id for check in record.checks if not check.passed]
    for name in STORIES[case]["snapshots"]:
        assert (package / "snapshots" / f"{name}.json").is_file(), f"missing snapshot {name}"
    assert (package / "trace.zip").is_file() and list((package / "screenshots").glob("*-final.png"))
    assert record.accounting.run_count <= 12
    if case.startswith("recover-controller"):
        one_run_and_one_runner_throughout(package, STORIES[case]["snapshots"])


def one_run_and_one_runner_throughout(package: Path, restart_snapshots: list[str]) -> None:
    """A restart's snapshots (before, after, final): another controller after it, but one run with one runner
    process throughout, whose receipts were only added to, each once."""
    moments = [json.loads((package / "snapshots" / f"{name}.json").read_text()) for name in restart_snapshots]
    assert len({m["controller_instance_id"] for m in moments}) == 2  # one controller before, another after
    assert len({(m["run"]["id"], m["run"]["pid"], m["run"]["process_start_time"]) for m in moments}) == 1
    before, final = moments[0]["run"]["receipts"], moments[2]["run"]["receipts"]
    assert final[: len(before)] == before and len({r["id"] for r in final}) == len(final)
    assert all(len(r["sha256"]) == 64 for r in final) and moments[0]["workspace"]


def test_each_fault_story_is_calibrated_with_the_personas_that_break_it() -> None:
    registered = {(c.case, c.persona): c.expected_check for c in PERSONA_CASES}
    assert registered[("delegate-feedback", "ignores-late-feedback")] == "oracle.child"
    assert registered[("delegate-feedback", "works-on-parent")] == "delegate.teammate-never-on-parent"
    assert registered[("delegate-feedback", "parent-before-child")] == "lifecycle.parent-after-child"
    assert registered[("late-feedback", "ignores-late-feedback")] == "oracle.final"
    assert registered[("recover-controller", "crashes-mid-run")] == "lifecycle.runs-succeeded"
    assert registered[("stop-redirect", "writes-after-stop")] == "stop.workspace-unchanged"
    assert registered[("stop-redirect", "forgets-nonce")] == "stop.reply-has-nonce"
    assert registered[("delegate-feedback", "uncited-report")] == "delegate.reply-cites-final-delivery"
    for case in STORIES:
        assert registered[(case, "default")] is None
