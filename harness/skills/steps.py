"""The skill library in a person's vocabulary: what the create-skill-studio story does and requires.

Each step drives the driver's page objects (the task page's skill cards and
sidebar, Skill Studio), reads the library through the product's API, keeps a
screenshot, and decides one named rule of :mod:`harness.skills.rules`. A
rule that fails ends the story as ``failed`` under its own check id: the
steps after it would only repeat the same miss.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import cast

from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from harness.products.base import SkillsDriver, StudioView, TaskSkillsView
from harness.products.records import SkillEntry, Task
from harness.running.journey import Journey
from harness.skills import rules


class SkillLibrary:
    """The company's skill library as one person sees it during a journey (what was there before they asked)."""

    def __init__(self, journey: Journey) -> None:
        self.journey = journey
        self.before = {str(s.id) for s in journey.api.skills()}
        journey.evidence.note("skill library", f"{len(self.before)} skill(s) before the request")

    @contextmanager
    def _on_page(self, check_id: str, what: str) -> Iterator[None]:
        """A page that never shows what the step waits for fails the step's own check."""
        try:
            yield
        except (PlaywrightTimeoutError, AssertionError, TimeoutError) as error:
            first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            self.journey.fail_check(check_id, f"{what}: {first}")

    def _panel(self, task: Task) -> TaskSkillsView:
        return cast(SkillsDriver, self.journey.driver).task_skills(
            self.journey.page, self.journey.instance.base_url, task.id
        )

    # ---- the steps ------------------------------------------------------------------------

    def require_one_new_skill(self, task: Task) -> SkillEntry:
        """Exactly one library entry is new since the request, and the task's thread shows its card."""
        library = self.journey.api.skills()
        kept = self.journey.evidence.snapshot("skills-after-request", [s.model_dump() for s in library])
        self.journey.require(rules.created_once(self.before, library), "one new skill", kept)
        created = next(s for s in library if str(s.id) not in self.before)
        self.journey.evidence.note("skill created", f"skill {created.id} {created.slug!r} ({created.name!r})")
        panel = self._panel(task)
        with self._on_page(rules.CARD_SHOWN, f"waiting for a skill card on task {task.id}"):
            panel.wait_for_card(self.journey.shown_budget())
        self.journey.require(rules.card_shown(panel.card_skill_ids()), "skill card shown")
        return created

    def open_from_card(self, task: Task, created: SkillEntry) -> StudioView:
        """Follow the card's link; Studio must show the created skill's id and slug."""
        with self._on_page(rules.CARD_LINKS_CREATED, f"opening the skill card on task {task.id}"):
            studio = self._panel(task).open_card(0)
        shown = rules.is_same_skill(
            rules.CARD_LINKS_CREATED, created, studio.skill_id(), studio.slug(), "Studio opened from the card"
        )
        self.journey.require(shown, "studio from card")
        return studio

    def save_edit(self, studio: StudioView, created: SkillEntry) -> str:
        """Append a reviewed section (with a fresh marker) to the body and press Save; returns the edited body."""
        edit = f"{studio.body().rstrip()}\n\n## Reviewed\n\nChecked by a person in Studio ({self.journey.fresh_nonce()}).\n"
        with self._on_page(rules.EDIT_SAVED, f"saving an edit of skill {created.id} in Studio"):
            studio.save(edit)
        self.journey.screenshot("studio saved")
        self.journey.evidence.note("skill edited", f"skill {created.id}: saved an edit of {len(edit)} characters")
        return edit

    def require_edit_from_sidebar(self, task: Task, created: SkillEntry, edit: str) -> None:
        """Back on the task, open the skill from the sidebar: same skill, the edit stored and shown, after a reload too."""
        self.journey.open_task(task)
        panel = self._panel(task)
        self.journey.require(rules.sidebar_lists(created, panel.sidebar_skill_ids()), "task sidebar")
        with self._on_page(rules.SIDEBAR_OPENS_CREATED, f"opening skill {created.id} from the sidebar"):
            studio = panel.open_from_sidebar(created.id)
        self.journey.require(
            rules.is_same_skill(
                rules.SIDEBAR_OPENS_CREATED, created, studio.skill_id(), studio.slug(), "Studio opened from the sidebar"
            ),
            "studio from sidebar",
        )
        stored = self.journey.api.skill(created.id)
        kept = self.journey.evidence.snapshot(f"skill-{created.id}-after-edit", stored.model_dump())
        saved = rules.edit_saved(edit, stored.body, stored.version, created.version, studio.body())
        self.journey.require(saved, "edit shown", kept)
        with self._on_page(rules.EDIT_KEPT_AFTER_RELOAD, f"reloading Studio on skill {created.id}"):
            studio = studio.reload()
        self.journey.require(rules.edit_kept(edit, studio.body()), "edit after reload")
        self.journey.open_task(task)  # the person ends where the work is: the task's page
