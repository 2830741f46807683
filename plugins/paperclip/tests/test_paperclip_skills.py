"""create-skill-studio on the real Paperclip through `harness run`: the scripted agent creates the company skill
through its run's credentials, the person finds it in the activity feed (its entry names the issue's run), opens it
in Skill Studio through the library and saves a section as version 2; Paperclip has no skills sidebar, so those
checks are not observable there (real product, browser).

The cell is played once in the session beside build-revise (tests/stories/shared_plays.py, whose play asserts
that no process of it outlived the run): this test reads its package only."""

from __future__ import annotations

import json

import pytest

from harness.core.verdicts import Verdict
from harness.skills import rules
from tests.needs import PLAYS_CELLS, marked
from tests.stories import shared_plays

CELL = "everyday-workflows-paperclip.scripted.paperclip-local.create-skill-studio"
DECIDED = [
    rules.CREATED_ONCE,
    rules.NOTICE_SHOWN,
    rules.NOTICE_OPENS_CREATED,
    rules.EDIT_SAVED,
    rules.EDIT_KEPT_AFTER_RELOAD,
]


@marked(*PLAYS_CELLS)
def test_the_person_finds_the_new_skill_in_the_activity_feed_and_saves_an_edit_in_studio(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    record, package = shared_plays.paperclip_cell(tmp_path_factory, CELL)
    assert record.verdict is Verdict.PASSED, record.reason
    checks = {check.id: check for check in record.checks}
    assert len(checks) == len(record.checks), "each check is kept once"
    assert all(checks[check_id].passed for check_id in DECIDED), [checks[c].detail for c in DECIDED]
    assert "the activity feed" in checks[rules.NOTICE_SHOWN].detail
    for sidebar in (rules.SIDEBAR_LISTS_CREATED, rules.SIDEBAR_OPENS_CREATED):
        assert checks[sidebar].unobservable == "Paperclip does not expose task-skills"
    [edited] = package.glob("snapshots/skill-*-after-edit.json")
    skill = json.loads(edited.read_text())
    assert skill["slug"] == "how-we-write-release-notes" and skill["version"] == 2
    assert "## Reviewed" in skill["body"] and "Checked by a person in Studio" in skill["body"]
