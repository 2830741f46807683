"""Create a company skill, then edit it in Skill Studio.

A person asks the lead to write down how the team writes release notes as a
company skill. Once the agent has finished there must be exactly one new
entry in the skill library, and the product must tell the person of it once
(the testbed with a card in the task's thread, Paperclip in its activity feed
with the task's run). They follow that to the skill and make sure Studio
shows that same skill (by its id and slug, never by the heading the agent
chose), add a section and save it, go back to the task, open the skill again
(from the task's skills sidebar where it has one) and require the edit as
the newest version, after a reload too.
"""

from __future__ import annotations

from harness.core.catalog import Case
from harness.core.criteria import Criterion, EvidenceNeed
from harness.running.journey import Journey
from harness.skills.steps import SkillLibrary

CASE = Case(
    name="create-skill-studio",
    needs=("skills",),
    scripted_deadline_s=120,
    description="The lead creates a company skill; found where the product tells of it, it is edited in Studio.",
    criteria=(
        Criterion(
            id="document-does-request",
            text="Does the skill's document do what the person asked: describe how the team writes release notes,"
            " covering what goes in, how entries are grouped and who reviews them?",
            evidence=(
                EvidenceNeed(
                    path="snapshots/skill-request.json",
                    field="request",
                    role="reference",
                    label="what the person asked",
                ),
                EvidenceNeed(
                    path="snapshots/skill-created.json", field="body", role="agent_text", label="the skill's document"
                ),
            ),
        ),
    ),
)

SKILL_TASK_TITLE = "Write down how we write release notes"
SKILL_REQUEST = (
    'Create a company skill: "how we write release notes". Cover what goes in, how entries are grouped '
    "and who reviews them, so every later release can follow it."
)


def story(journey: Journey) -> None:
    library = SkillLibrary(journey)
    journey.evidence.snapshot("skill-request", {"title": SKILL_TASK_TITLE, "request": SKILL_REQUEST})
    task = journey.create_task(SKILL_TASK_TITLE, SKILL_REQUEST)
    journey.wait_until_finished(task, "the skill")
    skill = library.require_one_new_skill(task)
    studio = library.open_from_notice(task, skill)
    edit = library.save_edit(studio, skill)
    library.require_edit_when_reopened(task, skill, edit)
