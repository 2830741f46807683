"""Playwright page objects for the testbed's skill library: a task page's skill cards and sidebar, and Skill Studio.

Kept beside :mod:`.pages` (same conventions: ``data-testid`` selectors, waits
on visible states, never sleeps). Studio reports the id and slug it *shows*:
a story identifies a skill by those, never by the heading an agent wrote.
"""

from __future__ import annotations

from playwright.sync_api import Page, expect

from harness.core.product_records import RecordId
from harness.products.testbed.pages import DEFAULT_TIMEOUT_S, ms


class StudioPage:
    """Skill Studio, open on one skill."""

    def __init__(self, page: Page) -> None:
        self.page = page
        expect(self.page.get_by_test_id("studio-page")).to_be_visible()

    def skill_id(self) -> str:
        return self.page.get_by_test_id("studio-skill-id").inner_text().strip()

    def slug(self) -> str:
        return self.page.get_by_test_id("studio-skill-slug").inner_text().strip()

    def body(self) -> str:
        return self.page.get_by_test_id("studio-body").input_value()

    def add_section(self, heading: str, text: str) -> StudioPage:
        """Append the section to the body's markdown, press Save version and wait for the product's "Saved" on the
        reopened page."""
        self.page.get_by_test_id("studio-body").fill(f"{self.body().rstrip()}\n\n## {heading}\n\n{text}\n")
        self.page.get_by_test_id("studio-save").click()
        expect(self.page.get_by_test_id("studio-saved")).to_be_visible()
        return StudioPage(self.page)

    def reload(self) -> StudioPage:
        self.page.reload()
        return StudioPage(self.page)


class TaskSkillsPanel:
    """The skills part of an open task page: "skill created" cards in the thread (its notices) and the skills
    sidebar."""

    where = "the task's thread"

    def __init__(self, page: Page, base_url: str, task_id: RecordId) -> None:
        self.page = page
        self.base_url = base_url.rstrip("/")
        self.task_id = task_id

    def notice_skill_ids(self) -> list[str]:
        cards = self.page.get_by_test_id("skill-card")
        return [cards.nth(i).get_attribute("data-skill-id") or "" for i in range(cards.count())]

    def wait_for_notice(self, timeout: float = DEFAULT_TIMEOUT_S) -> None:
        expect(self.page.get_by_test_id("skill-card").first).to_be_visible(timeout=ms(timeout))

    def open_notice(self, index: int = 0) -> StudioPage:
        self.page.get_by_test_id("skill-card").nth(index).get_by_test_id("skill-card-link").click()
        return StudioPage(self.page)

    def sidebar_skill_ids(self) -> list[str]:
        links = self.page.get_by_test_id("task-skill-link")
        return [links.nth(i).get_attribute("data-skill-id") or "" for i in range(links.count())]

    def open_from_sidebar(self, skill_id: int | str) -> StudioPage:
        self.page.locator(f'[data-testid="task-skill-link"][data-skill-id="{skill_id}"]').click()
        return StudioPage(self.page)
