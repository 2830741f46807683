"""Every scripted story of the container environment plays on the real testbed with its runners in real
containers, and each is held to the sandbox checks that fit what it did: a story that delivers work must get
its workspace back; one that delivers nothing (a skill written in Studio, work stopped) is not failed for it."""

from __future__ import annotations

from pathlib import Path

from harness.core.verdicts import Verdict
from tests.needs import PLAYS_CELLS, marked
from tests.stories.harness_runs import attempts, harness_run, ids

DELIVERING = "everyday-workflows-scripted.scripted.container.delegate-feedback"
DELIVERING_NOTHING = [
    "everyday-workflows-scripted.scripted.container.create-skill-studio",
    "everyday-workflows-scripted.scripted.container.stop-redirect",
]
"""build-revise and recover-controller play in the container elsewhere (fact conformance, replay stories)."""


@marked(*PLAYS_CELLS)
def test_the_container_stories_pass_under_the_sandbox_checks_that_fit_them(tmp_path: Path) -> None:
    cells = [DELIVERING, *DELIVERING_NOTHING]
    done = harness_run(tmp_path, *ids(cells), cells=len(cells))
    played = {record.cell.execution_id: record for record in attempts(tmp_path)}
    assert sorted(played) == sorted(cells), done.stdout[-2000:]
    for cell, record in played.items():
        assert record.verdict is Verdict.PASSED, f"{cell}: {record.verdict} {done.stdout[-2000:]}"
        judged = {check.id: check for check in record.checks}
        assert judged["sandbox.contained"].passed and judged["sandbox.released"].passed, cell
    returned = {check.id: check for check in played[DELIVERING].checks}["sandbox.workspace-returned"]
    assert returned.passed and "delivered file(s)" in returned.detail
    for cell in DELIVERING_NOTHING:
        assert "sandbox.workspace-returned" not in {check.id for check in played[cell].checks}, cell
