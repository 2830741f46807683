"""Every faulty persona makes its story fail on the intended check; the default persona passes."""

from __future__ import annotations

from pathlib import Path

import pytest

from calibration.personas import PERSONA_CASES, PersonaCase, row_for, run_persona
from tests.needs import PLAYS_CELLS, marked
from tests.stories import (
    test_build_revise,
    test_decision_stories,
    test_fault_stories,
    test_hire_reuse,
    test_provider_stories,
)

# A default persona's row is its story passing for a good agent. The story tests run that same scripted cell and
# assert more (its named checks, snapshots and evidence), so pytest runs it there once, not twice here;
# `python -m calibration` still runs every row.
GOOD_PATH_STORY_TESTS = {
    *test_fault_stories.STORIES,
    *test_decision_stories.STORIES,
    *test_provider_stories.STORIES,
    "build-revise",  # tests/stories/test_build_revise.py
    "hire-reuse",  # tests/stories/test_hire_reuse.py
}
RUN_HERE = [case for case in PERSONA_CASES if not (case.persona == "default" and case.case in GOOD_PATH_STORY_TESTS)]


@marked(*PLAYS_CELLS)
@pytest.mark.parametrize("case", RUN_HERE, ids=[c.label for c in RUN_HERE])
def test_persona_is_caught_by_the_intended_check(case: PersonaCase, tmp_path: Path) -> None:
    record = run_persona(case, tmp_path)
    row = row_for(case, record)
    if case.deadline_s and record is not None:  # the shorter deadline is the one the attempt ran (and records)
        assert record.timing.deadline_s == case.deadline_s
    assert row.ok, f"expected {row.expected}, got {row.got} (first failed check {row.deciding}): {row.detail}"


def test_the_single_story_tests_named_above_run_the_default_scripted_cell() -> None:
    assert test_build_revise.CELL == "everyday-workflows-scripted.scripted.local.build-revise"
    [mark] = [m for m in test_hire_reuse.test_hire_reuse_passes_and_keeps_its_evidence.pytestmark if m.args]
    assert "everyday-workflows-scripted.scripted.local.hire-reuse" in mark.args[1]
