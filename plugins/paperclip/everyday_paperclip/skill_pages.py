"""Page objects for Paperclip's company skills as a person reaches them: the activity feed, the skill library, Studio.

Paperclip has no card in an issue's thread and no skills sidebar: it tells
of a new skill in its activity feed, one ``company.skill_created`` entry
whose "View run" link names the run that created it. The entry names
neither the skill nor links to it, so the person opens the skill library,
the skill Paperclip recorded for the entry (by its name, which the agent's
comment gives too), its page and "Open in Studio". Studio lives at
``/<PREFIX>/skills/studio/<skill id>`` and edits ``SKILL.md`` in a rich
markdown editor; a Save stores the next version. Selectors for these pages
live here (see :mod:`.pages` for the conventions).
"""

from __future__ import annotations

import re
from typing import Any

import httpx
from playwright.sync_api import Locator, Page, expect

from everyday_paperclip.pages import SHOWN_S, ms
from harness.core.product_records import RecordId
from harness.products.http import product_json

CREATED = "company.skill_created"
STUDIO_PATH = re.compile(r"/skills/studio/(?P<id>[^/?#]+)")
# Studio's label above the editor: "SKILL.md · v2" (the skill's current version).
VERSION_LABEL = re.compile(r"SKILL\.md · v\d+")


class PaperclipStudio:
    """Skill Studio open on one skill: the id its address shows, the slug its skill page showed (its Key,
    ``company/<company>/<slug>``; Studio shows only the name), the body as its editor shows it."""

    def __init__(self, page: Page, slug: str) -> None:
        self.page = page
        self._slug = slug
        expect(self._editor()).to_contain_text(re.compile(r"\S"), timeout=ms(SHOWN_S))

    def _editor(self) -> Locator:
        return self.page.get_by_role("textbox", name="editable markdown")

    def _version(self) -> int:
        label = self.page.get_by_text(VERSION_LABEL).first
        expect(label).to_be_visible(timeout=ms(SHOWN_S))
        return int(label.inner_text().rsplit("v", 1)[-1])

    def skill_id(self) -> str:
        found = STUDIO_PATH.search(self.page.url)
        return found.group("id") if found else ""

    def slug(self) -> str:
        return self._slug

    def body(self) -> str:
        return self._editor().inner_text()

    def add_section(self, heading: str, text: str) -> PaperclipStudio:
        """Click after the body's last line, leave a list it ends in (Enter on an empty item does), type the section
        (the editor turns ``## `` into a heading), press Save, and wait until Studio labels the next version."""
        version = self._version()
        last = self._editor().locator(":scope > *").last
        box = last.bounding_box() or {"width": 1.0, "height": 1.0}
        last.click(position={"x": box["width"] - 1, "y": box["height"] - 1})
        keyboard = self.page.keyboard
        keyboard.press("End")
        keyboard.press("Enter")
        if self.page.evaluate("() => !!document.getSelection()?.anchorNode?.parentElement?.closest('li')"):
            keyboard.press("Enter")
        keyboard.type(f"## {heading}")
        keyboard.press("Enter")
        keyboard.type(text)
        expect(self._editor()).to_contain_text(text, timeout=ms(SHOWN_S))
        save = self.page.get_by_role("button", name="Save", exact=True)
        expect(save).to_be_enabled(timeout=ms(SHOWN_S))
        save.click()
        expect(self.page.get_by_text(f"SKILL.md · v{version + 1}")).to_be_visible(timeout=ms(SHOWN_S))
        return self

    def reload(self) -> PaperclipStudio:
        self.page.reload()
        return PaperclipStudio(self.page, self._slug)


class ActivityFeedSkills:
    """Where Paperclip tells a person of the skills an issue's runs created: its activity feed's entries."""

    where = "the activity feed"

    def __init__(self, page: Page, base_url: str, task_id: RecordId) -> None:
        self.page = page
        self.base_url = base_url.rstrip("/")
        self.task_id = str(task_id)
        [company] = self._json("/api/companies")
        self.company_id, self.prefix = str(company["id"]), str(company["issuePrefix"])

    def _json(self, path: str) -> Any:
        return product_json(httpx.request, "GET", f"{self.base_url}{path}", timeout=15)

    def _rows(self) -> Locator:
        return self.page.locator("li").filter(has_text=CREATED)

    def _open_feed(self) -> None:
        if not self.page.url.startswith(f"{self.base_url}/{self.prefix}/activity"):
            self.page.goto(f"{self.base_url}/{self.prefix}/activity")

    def wait_for_notice(self, timeout: float = SHOWN_S) -> None:
        self._open_feed()
        expect(self._rows().first).to_be_visible(timeout=ms(timeout))

    def notice_skill_ids(self) -> list[str]:
        """One id per entry the feed shows of a skill created by a run of this issue: the skill Paperclip recorded
        for the entry (the feed shows only its run and time)."""
        self._open_feed()
        runs = {r["runId"] for r in self._json(f"/api/issues/{self.task_id}/runs")}
        recorded = {
            (a.get("runId"), a["createdAt"]): a["entityId"]
            for a in self._json(f"/api/companies/{self.company_id}/activity")
            if a["action"] == CREATED
        }
        ids = []
        for row in self._rows().all():
            run_id = (row.get_by_role("link", name="View run").get_attribute("href") or "").rsplit("/", 1)[-1]
            if run_id in runs:
                ids.append(recorded.get((run_id, row.locator("time").get_attribute("datetime")), ""))
        return ids

    def open_notice(self, index: int = 0) -> PaperclipStudio:
        """From the entry to the library, the skill's card (by the name Paperclip recorded), its page, Studio."""
        self.wait_for_notice()
        notices = self.notice_skill_ids()
        if len(notices) <= index:
            raise AssertionError(f"the activity feed shows {len(notices)} skill(s) created by the task's runs")
        skill_id = notices[index]
        name = str(self._json(f"/api/companies/{self.company_id}/skills/{skill_id}")["name"])
        self.page.goto(f"{self.base_url}/{self.prefix}/skills")
        self.page.get_by_role("button").filter(has=self.page.get_by_text(name, exact=True)).first.click()
        key = self.page.get_by_text(re.compile(r"^company/\S+/\S+$")).first
        expect(key).to_be_visible(timeout=ms(SHOWN_S))
        slug = key.inner_text().strip().rsplit("/", 1)[-1]
        self.page.get_by_role("link", name="Open in Studio").click()
        self.page.wait_for_url(STUDIO_PATH, timeout=ms(SHOWN_S))
        return PaperclipStudio(self.page, slug)

    def sidebar_skill_ids(self) -> list[str]:
        raise NotImplementedError("Paperclip's issue pages have no skills sidebar")

    def open_from_sidebar(self, skill_id: RecordId) -> PaperclipStudio:
        raise NotImplementedError("Paperclip's issue pages have no skills sidebar")
