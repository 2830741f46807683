"""create-skill-studio end to end through `harness run`: it passes on the healthy testbed, and each skill
defect makes it fail under the one `skill.*` check its calibration case names, and no other (its `alone`
calibration cases in tests/calibration/test_product_defects.py; real product, browser, SQLite)."""

from __future__ import annotations

from pathlib import Path

from calibration.product_defects import DEFECT_CASES
from harness.core.verdicts import Verdict
from tests.needs import PLAYS_CELLS, marked
from tests.stories.harness_runs import attempts, harness_run, processes_of

CELL = "everyday-workflows-scripted.scripted.local.create-skill-studio"
SKILL_CASES = {case.defect: case.expected_check for case in DEFECT_CASES if case.case == "create-skill-studio"}


@marked(*PLAYS_CELLS)
def test_create_skill_studio_passes_with_every_skill_check(tmp_path: Path) -> None:
    done = harness_run(tmp_path, "--id", CELL)
    assert done.returncode == 0, done.stdout + done.stderr
    [record] = attempts(tmp_path)
    assert record.verdict is Verdict.PASSED
    skill_checks = {check.id for check in record.checks if check.id.startswith("skill.")}
    assert set(SKILL_CASES.values()) <= skill_checks
    assert all(check.passed for check in record.checks)
    assert processes_of(tmp_path) == []


@marked(*PLAYS_CELLS, "agent_cli")
def test_a_real_agent_cli_creates_the_skill_through_the_products_tool(tmp_path: Path) -> None:
    """The real CLI (against the model replay) creates the skill once with create_skill; the person edits it."""
    done = harness_run(tmp_path, "--id", "everyday-workflows-replay.replay-claude.local.create-skill-studio")
    [record] = attempts(tmp_path)
    assert done.returncode == 0 and record.verdict is Verdict.PASSED, f"{record.reason}\n{done.stdout[-2000:]}"
    assert set(SKILL_CASES.values()) <= {check.id for check in record.checks if check.passed}
    assert record.accounting.replay_model_calls and record.provenance.agent_clis
