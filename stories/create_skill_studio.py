"""Create a company skill, then edit it in Skill Studio.

A person asks the lead to write down how the team writes release notes as a
company skill. Once the agent has finished there must be exactly one new
entry in the skill library and a card for it in the task's thread. They open
the skill from the card and make sure Studio shows that same skill (by its
id and slug, never by the heading the agent chose), save an edit, go back to
the task, open the skill again from the task's sidebar and require the edit,
after a reload too.
"""

from __future__ import annotations

from harness.core.catalog import Case
from harness.running.journey import Journey
from harness.skills.steps import SkillLibrary

CASE = Case(
    name="create-skill-studio",
    needs=("skills",),
    scripted_deadline_s=120,
    description="The lead creates a company skill; opened from its card and the task's sidebar, it is edited in Studio.",
)

SKILL_TASK_TITLE = "Write down how we write release notes"
SKILL_REQUEST = (
    'Create a company skill: "how we write release notes". Cover what goes in, how entries are grouped '
    "and who reviews them, so every later release can follow it."
)


def story(journey: Journey) -> None:
    library = SkillLibrary(journey)
    task = journey.create_task(SKILL_TASK_TITLE, SKILL_REQUEST)
    journey.wait_until_finished(task, "the skill")
    skill = library.require_one_new_skill(task)
    studio = library.open_from_card(task, skill)
    edit = library.save_edit(studio, skill)
    library.require_edit_from_sidebar(task, skill, edit)
