"""The skill library in a person's vocabulary: what the create-skill-studio story does and requires.

Each step drives the driver's page objects (where the product tells the
person of the new skill, the task's skills sidebar, Skill Studio), reads the
library through the product's API, keeps a screenshot, and decides one
named rule of :mod:`harness.skills.rules`. A rule that fails ends the story
as ``failed`` under its own check id: the steps after it would only repeat
the same miss.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from harness.core.product_records import SkillEntry, Task
from harness.core.records import CheckRecord
from harness.judging.observations import judge
from harness.products.views import StudioView, TaskSkillsView
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
        return self.journey.driver.task_skills(self.journey.page, self.journey.instance.base_url, task.id)

    # ---- the steps ------------------------------------------------------------------------

    def require_one_new_skill(self, task: Task) -> SkillEntry:
        """Exactly one library entry is new since the request, and the product tells the person of it once."""
        library = self.journey.api.skills()
        kept = self.journey.evidence.snapshot("skills-after-request", [s.model_dump() for s in library])
        self.journey.require(judge(rules.created_once, self.before, library), "one new skill", kept)
        created = next(s for s in library if str(s.id) not in self.before)
        # The document as the product keeps it, for the story's judged criterion (a judge reads the package only).
        self.journey.evidence.snapshot("skill-created", self.journey.api.skill(created.id).model_dump())
        self.journey.evidence.note("skill created", f"skill {created.id} {created.slug!r} ({created.name!r})")
        panel = self._panel(task)
        with self._on_page(rules.NOTICE_SHOWN, f"waiting for a notice of the skill in {panel.where}"):
            panel.wait_for_notice(self.journey.shown_budget())
        self.journey.require(judge(rules.notice_shown, panel.notice_skill_ids(), panel.where), "skill notice shown")
        return created

    def _open_notice(self, task: Task, created: SkillEntry, step: str, again: bool = False) -> StudioView:
        """Follow the product's notice to Studio, which must show the created skill's id and slug (``again``: the
        check is kept once, from the first visit; a second visit that misses fails it)."""
        panel = self._panel(task)
        with self._on_page(rules.NOTICE_OPENS_CREATED, f"opening the skill from its notice in {panel.where}"):
            studio = panel.open_notice(0)
        where = f"Studio opened from the notice in {panel.where}"
        shown = rules.is_same_skill(rules.NOTICE_OPENS_CREATED, created, studio.skill_id(), studio.slug(), where)
        if again and not shown.failed:
            self.journey.screenshot(step)
        else:
            self.journey.require(shown, step)
        return studio

    def open_from_notice(self, task: Task, created: SkillEntry) -> StudioView:
        """Follow the notice of the new skill: Studio must show the created skill."""
        return self._open_notice(task, created, "studio from notice")

    def save_edit(self, studio: StudioView, created: SkillEntry) -> SkillEdit:
        """Add a reviewed section (with a fresh marker) at the end of the body and press Save."""
        body = self.journey.api.skill(created.id).body
        edit = SkillEdit(
            heading="Reviewed", text=f"Checked by a person in Studio ({self.journey.fresh_nonce()}).", before=body
        )
        with self._on_page(rules.EDIT_SAVED, f"saving an edit of skill {created.id} in Studio"):
            studio.add_section(edit.heading, edit.text)
        self.journey.screenshot("studio saved")
        self.journey.evidence.note("skill edited", f"skill {created.id}: added the section {edit.heading!r}")
        return edit

    def _reopen(self, task: Task, created: SkillEntry) -> StudioView:
        """Back on the task, open the skill again from its sidebar; a product whose task pages have none
        (``task-skills`` not observed) leaves both sidebar checks not observable, and the person follows the
        notice again."""
        self.journey.open_task(task)
        panel = self._panel(task)
        if reason := self.journey.evidence.unobservable(rules.SIDEBAR_LISTS_CREATED):
            for check_id in (rules.SIDEBAR_LISTS_CREATED, rules.SIDEBAR_OPENS_CREATED):
                self.journey.evidence.keep(CheckRecord.not_observable(check_id, reason))
            return self._open_notice(task, created, "studio from notice again", again=True)
        self.journey.require(judge(rules.sidebar_lists, created, panel.sidebar_skill_ids()), "task sidebar")
        with self._on_page(rules.SIDEBAR_OPENS_CREATED, f"opening skill {created.id} from the sidebar"):
            studio = panel.open_from_sidebar(created.id)
        self.journey.require(
            judge(
                rules.is_same_skill,
                rules.SIDEBAR_OPENS_CREATED,
                created,
                studio.skill_id(),
                studio.slug(),
                "Studio opened from the sidebar",
            ),
            "studio from sidebar",
        )
        return studio

    def require_edit_when_reopened(self, task: Task, created: SkillEntry, edit: SkillEdit) -> None:
        """Opened again from the task: the same skill, the edit stored as its newest version and shown, after a
        reload too."""
        studio = self._reopen(task, created)
        stored = self.journey.api.skill(created.id)
        kept = self.journey.evidence.snapshot(f"skill-{created.id}-after-edit", stored.model_dump())
        saved = rules.edit_saved(edit.body, edit.text, stored.body, stored.version, created.version, studio.body())
        self.journey.require(saved, "edit shown", kept)
        with self._on_page(rules.EDIT_KEPT_AFTER_RELOAD, f"reloading Studio on skill {created.id}"):
            studio = studio.reload()
        self.journey.require(judge(rules.edit_kept, edit.text, studio.body()), "edit after reload")
        self.journey.open_task(task)  # the person ends where the work is: the task's page


@dataclass(frozen=True)
class SkillEdit:
    """The section a person adds in Studio: its heading and text (with a fresh marker), after the body ``before``."""

    heading: str
    text: str
    before: str

    @property
    def body(self) -> str:
        """The whole edited body, as markdown."""
        return f"{self.before.rstrip()}\n\n## {self.heading}\n\n{self.text}\n"
