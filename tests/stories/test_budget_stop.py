"""budget-stop end to end through `harness run`: it passes on the healthy testbed with every budget check decided,
the paused run excused from the lifecycle checks and the work finished after the raise (each budget defect's
calibration case is in tests/calibration/test_product_defects.py; real product, browser, SQLite, oracle)."""

from __future__ import annotations

from pathlib import Path

from calibration.product_defects import DEFECT_CASES
from harness.core.verdicts import Verdict
from tests.needs import PLAYS_CELLS, marked
from tests.stories.harness_runs import attempts, harness_run, processes_of

CELL = "everyday-workflows-scripted.scripted.local.budget-stop"
BUDGET_CHECKS = {c.expected_check for c in DEFECT_CASES if c.case == "budget-stop"}


@marked(*PLAYS_CELLS)
def test_budget_stop_passes_with_every_budget_check(tmp_path: Path) -> None:
    done = harness_run(tmp_path, "--id", CELL)
    assert done.returncode == 0, done.stdout + done.stderr
    [record] = attempts(tmp_path)
    assert record.verdict is Verdict.PASSED
    assert BUDGET_CHECKS <= {check.id for check in record.checks if check.passed}
    assert {"oracle.build", "lifecycle.runs-succeeded"} <= {check.id for check in record.checks if check.passed}
    assert record.accounting.run_count == 2 and record.accounting.model_calls > 2
    assert processes_of(tmp_path) == []
