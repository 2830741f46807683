"""Paperclip's driver delivers what it declares: build-revise's package carries every fact the driver declares
that the story reaches, with its provenance, and no undeclared fact as Paperclip's own (which run read a comment
is worked out by the driver, and kept as derived) (real product, browser).

The cell is played once in the session beside create-skill-studio (tests/stories/shared_plays.py, whose play
asserts that no process of it outlived the run): this test reads its package only."""

from __future__ import annotations

import pytest

from tests.needs import PLAYS_CELLS, marked
from tests.stories import shared_plays
from tests.stories.harness_runs import declaration_gaps

CELL = "everyday-workflows-paperclip.scripted.paperclip-local.build-revise"


@marked(*PLAYS_CELLS)
def test_the_build_revise_package_carries_exactly_the_facts_paperclips_driver_declares(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    record, package = shared_plays.paperclip_cell(tmp_path_factory, CELL)
    assert declaration_gaps(package) == [], record.reason
