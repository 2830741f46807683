"""Paperclip's driver delivers what it declares: build-revise's package carries every fact the driver declares
that the story reaches, with its provenance, and no undeclared fact as Paperclip's own (which run read a comment
is worked out by the driver, and kept as derived) (real product, browser)."""

from __future__ import annotations

from pathlib import Path

from tests.needs import PLAYS_CELLS, marked
from tests.stories.harness_runs import attempts, declaration_gaps, harness_run

CELL = "everyday-workflows-paperclip.scripted.paperclip-local.build-revise"


@marked(*PLAYS_CELLS)
def test_the_build_revise_package_carries_exactly_the_facts_paperclips_driver_declares(tmp_path: Path) -> None:
    done = harness_run(tmp_path, "--id", CELL)
    [record] = attempts(tmp_path)
    assert record.cell.execution_id == CELL, done.stdout[-2000:]
    assert declaration_gaps(tmp_path / "test" / CELL / record.attempt) == []
