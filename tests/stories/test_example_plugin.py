"""The template plug-in end to end: its story on its product, run by `harness run` as any built-in cell is."""

from __future__ import annotations

from pathlib import Path

from harness.core.verdicts import Verdict
from tests.needs import PLAYS_CELLS, marked
from tests.stories.harness_runs import attempts, harness_run

CELL = "example-scripted.scripted.example-local.build-once"


@marked(*PLAYS_CELLS)
def test_the_plug_in_story_runs_on_the_plug_in_product_and_passes(tmp_path: Path) -> None:
    done = harness_run(tmp_path, "--id", CELL)
    assert done.returncode == 0, done.stdout + done.stderr
    [record] = attempts(tmp_path)
    assert record.verdict is Verdict.PASSED
    assert record.provenance.product == "example"
    assert {"oracle.build", "lifecycle.tasks-done"} <= {check.id for check in record.checks if check.passed}
