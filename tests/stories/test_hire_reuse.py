"""hire-reuse end to end through `harness run`: the scripted cell and a real CLI's replay cell pass with every hire
and reuse check and keep the story's evidence; a hiring cell's hard stop, set by the run, stops an agent that keeps
spending (real product, browser, oracle, replay server)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from calibration.replay_scripts import REPLAY_CASES, row_for, run_replay_case
from harness.core.catalog import DELEGATION_HARD_STOP_CENTS
from harness.core.verdicts import Verdict
from harness.hiring import rules as hiring
from tests.needs import PLAYS_CELLS, marked
from tests.stories.harness_runs import attempts, harness_run, processes_of

CHECKS = [
    hiring.ONE_AGENT,
    hiring.REPORTS_TO_LEAD,
    hiring.SAME_RUNNER,
    hiring.SAME_CONNECTIONS,
    hiring.FIRST_CHILD,
    hiring.SAME_AGENT_AGAIN,
    "oracle.first",
    "oracle.second",
]
SNAPSHOTS = ["agents-before-hire", "agents-after-hire", "first-use", "second-use", "agents"]


@marked(*PLAYS_CELLS)
@pytest.mark.parametrize(
    "execution_id",
    [
        "everyday-workflows-scripted.scripted.local.hire-reuse",
        "everyday-workflows-replay.replay-codex.local.hire-reuse",
    ],
)
def test_hire_reuse_passes_and_keeps_its_evidence(execution_id: str, tmp_path: Path) -> None:
    done = harness_run(tmp_path, "--id", execution_id)
    [record] = attempts(tmp_path)
    assert done.returncode == 0 and record.verdict is Verdict.PASSED, f"{record.reason}\n{done.stdout[-2000:]}"
    assert set(CHECKS) <= {check.id for check in record.checks if check.passed}
    assert not [check.id for check in record.checks if not check.passed]
    package = next(tmp_path.glob("test/*/*/attempt.json")).parent
    for name in SNAPSHOTS:
        assert (package / "snapshots" / f"{name}.json").is_file(), name
    grades = {phase: json.loads((package / "oracle" / f"{phase}.json").read_text()) for phase in ("first", "second")}
    assert [(grades[p]["task"], grades[p]["passed"]) for p in grades] == [("slugify", True), ("slugify-tests", True)]
    [morgan] = [a for a in json.loads((package / "snapshots" / "agents.json").read_text()) if a["name"] == "Morgan"]
    assert morgan["role"] == "QA"
    if ".replay-" in execution_id:  # a model-calling cell: the seed suite's hard stop for the company and the lead
        company = json.loads((package / "snapshots" / "company.json").read_text())
        lead = json.loads((package / "snapshots" / "agents.json").read_text())[0]
        assert company["budget_cents"] == lead["budget_cents"] == DELEGATION_HARD_STOP_CENTS
        assert 0 < record.accounting.simulated_cost_cents < DELEGATION_HARD_STOP_CENTS
        assert record.accounting.replay_model_calls == record.accounting.model_calls > 0
    assert any(Path(shot).name.endswith("hire-form-filled.png") for shot in record.screenshots)
    assert processes_of(tmp_path) == []


@marked(*PLAYS_CELLS)
def test_the_hard_stop_of_a_hiring_cell_stops_an_agent_that_keeps_spending(tmp_path: Path) -> None:
    [case] = [c for c in REPLAY_CASES if c.case == "hire-reuse"]
    row = row_for(case, run_replay_case(case, tmp_path))
    assert row.ok, f"expected {row.expected}, got {row.got} (first failed check {row.deciding}): {row.detail}"
