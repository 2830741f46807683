"""Paperclip's company skills in harness records: the scripted agent writes one through its run's credentials, and
the library, the skill and the activity feed read it back (a real instance, end to end)."""

from __future__ import annotations

import time

from agents.scripted.agent import skill_body
from harness.products.paperclip.instance import PaperclipInstance
from stories.create_skill_studio import SKILL_REQUEST, SKILL_TASK_TITLE


def test_the_scripted_agent_creates_one_company_skill_that_the_library_and_the_activity_feed_show() -> None:
    with PaperclipInstance(pace=0.01) as instance:
        api = instance.api
        lead = api.create_agent("Avery", "lead engineer")
        before = {str(s.id) for s in api.skills()}
        assert before, "the bundled skills are in the library from the start"
        task = api.create_task(SKILL_TASK_TITLE, SKILL_REQUEST, lead.id)
        deadline = time.monotonic() + 90
        while not ((current := api.task(task.id)).settled and current.status == "done"):
            assert time.monotonic() < deadline, current.model_dump_json()[:2000]
            time.sleep(0.2)
        [new] = [s for s in api.skills() if str(s.id) not in before]
        assert (new.name, new.slug, new.version) == ("How we write release notes", "how-we-write-release-notes", 1)
        assert api.skill(new.id).body.strip() == skill_body(new.name, SKILL_REQUEST).strip()
        [run] = current.runs
        created = [a for a in api.activity() if a.kind == "company.skill_created"]
        assert [(a.run_id, new.slug in a.message) for a in created] == [(run.id, True)]
        assert any(r.tool == "create_skill" and r.target == f"skill {new.id}" for r in run.receipts)
