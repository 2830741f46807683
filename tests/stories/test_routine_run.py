"""routine-run end to end through `harness run`: it passes on the healthy testbed with every routine check decided
(each routine defect's calibration case is in tests/calibration/test_product_defects.py; real product, browser,
SQLite, oracle)."""

from __future__ import annotations

from pathlib import Path

from calibration.product_defects import DEFECT_CASES
from harness.core.verdicts import Verdict
from tests.needs import PLAYS_CELLS, marked
from tests.stories.harness_runs import attempts, harness_run, processes_of

CELL = "everyday-workflows-scripted.scripted.local.routine-run"
ROUTINE_CHECKS = {
    c.expected_check for c in DEFECT_CASES if c.case == "routine-run" and c.expected_check.startswith("routine.")
}


@marked(*PLAYS_CELLS)
def test_routine_run_passes_with_every_routine_check(tmp_path: Path) -> None:
    done = harness_run(tmp_path, "--id", CELL)
    assert done.returncode == 0, done.stdout + done.stderr
    [record] = attempts(tmp_path)
    assert record.verdict is Verdict.PASSED
    assert ROUTINE_CHECKS <= {check.id for check in record.checks if check.passed}
    assert all(check.passed for check in record.checks)
    assert processes_of(tmp_path) == []


@marked(*PLAYS_CELLS, "agent_cli")
def test_a_real_agent_cli_does_the_routines_work(tmp_path: Path) -> None:
    """The real CLI (against the model replay) builds the tool on the task the routine started, once."""
    done = harness_run(tmp_path, "--id", "everyday-workflows-replay.replay-claude.local.routine-run")
    [record] = attempts(tmp_path)
    assert done.returncode == 0 and record.verdict is Verdict.PASSED, f"{record.reason}\n{done.stdout[-2000:]}"
    assert ROUTINE_CHECKS <= {check.id for check in record.checks if check.passed}
    assert record.accounting.replay_model_calls and record.provenance.agent_clis
