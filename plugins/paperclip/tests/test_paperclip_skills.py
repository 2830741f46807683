"""create-skill-studio on the real Paperclip through `harness run`: the scripted agent creates the company skill
through its run's credentials, the person finds it in the activity feed (its entry names the issue's run), opens it
in Skill Studio through the library and saves a section as version 2; Paperclip has no skills sidebar, so those
checks are not observable there (real product, browser)."""

from __future__ import annotations

import json
from pathlib import Path

from harness.core.verdicts import Verdict
from harness.skills import rules
from tests.needs import marked
from tests.stories.harness_runs import attempts, harness_run, processes_of

CELL = "everyday-workflows-paperclip.scripted.paperclip-local.create-skill-studio"
DECIDED = [
    rules.CREATED_ONCE,
    rules.NOTICE_SHOWN,
    rules.NOTICE_OPENS_CREATED,
    rules.EDIT_SAVED,
    rules.EDIT_KEPT_AFTER_RELOAD,
]


@marked("browser", "product")
def test_the_person_finds_the_new_skill_in_the_activity_feed_and_saves_an_edit_in_studio(tmp_path: Path) -> None:
    done = harness_run(tmp_path, "--id", CELL)
    [record] = attempts(tmp_path)
    assert done.returncode == 0 and record.verdict is Verdict.PASSED, f"{record.reason}\n{done.stdout[-2000:]}"
    checks = {check.id: check for check in record.checks}
    assert len(checks) == len(record.checks), "each check is kept once"
    assert all(checks[check_id].passed for check_id in DECIDED), [checks[c].detail for c in DECIDED]
    assert "the activity feed" in checks[rules.NOTICE_SHOWN].detail
    for sidebar in (rules.SIDEBAR_LISTS_CREATED, rules.SIDEBAR_OPENS_CREATED):
        assert checks[sidebar].unobservable == "Paperclip does not expose task-skills"
    package = next(tmp_path.glob("test/*/*/attempt.json")).parent
    [edited] = package.glob("snapshots/skill-*-after-edit.json")
    skill = json.loads(edited.read_text())
    assert skill["slug"] == "how-we-write-release-notes" and skill["version"] == 2
    assert "## Reviewed" in skill["body"] and "Checked by a person in Studio" in skill["body"]
    assert processes_of(tmp_path) == []
