"""Paperclip cells are part of `--all`: with Paperclip missing they fail loudly, never skip."""

from __future__ import annotations

import os
from pathlib import Path

from harness.core.verdicts import Verdict
from tests.needs import marked
from tests.stories.harness_runs import attempts, harness_run

CELL = "everyday-workflows-paperclip.scripted.paperclip-local.build-revise"


@marked("browser")
def test_a_paperclip_cell_without_paperclip_is_an_infrastructure_failure_that_says_how_to_install(
    tmp_path: Path,
) -> None:
    nowhere = tmp_path / "no-paperclip-here"
    done = harness_run(tmp_path / "results", "--id", CELL, env={**os.environ, "EVERYDAY_PAPERCLIP_DIR": str(nowhere)})
    assert done.returncode == 1, done.stdout + done.stderr
    [record] = attempts(tmp_path / "results")
    assert record.verdict is Verdict.INFRASTRUCTURE_FAILED
    assert "make paperclip" in record.reason and str(nowhere) in record.reason
    assert "skipped" not in done.stdout.split("verdicts:")[-1]
    assert not nowhere.exists(), "a cell never installs Paperclip by itself"
