"""Page objects for Paperclip's Routines (its list and the new-routine dialog) and a routine's Runs section.

A routine lives at ``/<PREFIX>/routines/<id>``; its sections are tabs (Triggers, Runs, ...), each at its own path.
The new-routine dialog is like the New Task dialog: a title, the agent (its "Responsible" picker, after which the
form opens its Project picker by itself), the instructions in a markdown editor; creating it lands on its Triggers
section. Selectors for these pages live here (see :mod:`.pages` for the conventions).
"""

from __future__ import annotations

import re

import httpx
from playwright.sync_api import Locator, Page, expect

from everyday_paperclip.pages import SHOWN_S, ms
from everyday_paperclip.routines import add_webhook
from everyday_paperclip.team_pages import _prefix
from harness.core.product_records import RecordId, ShownRoutineRun
from harness.products.http import product_json

# What a routine's Runs section shows for a run: Paperclip's routine-run status, which it derives from its execution
# issue's (services/routines.js syncRunStatusForIssue: ``completed`` once the issue is done, ``failed`` once it is
# blocked or cancelled, ``issue_created`` while it is open). Read in the harness's task words where it names one.
SHOWN_RUN_STATUSES = {"completed": "done"}


class RoutinePage:
    """A routine's Runs section: one row per run, each linking to the issue it created."""

    def __init__(self, page: Page, base_url: str, routine_id: RecordId) -> None:
        self.page = page
        self.base_url = base_url.rstrip("/")
        self.routine_id = routine_id

    def open(self) -> RoutinePage:
        self.page.goto(f"{self.base_url}/{_prefix(self.base_url)}/routines/{self.routine_id}/runs")
        expect(self._section().get_by_role("heading", name="Runs")).to_be_visible(timeout=ms(SHOWN_S))
        return self

    def reload(self) -> RoutinePage:
        return self.open()

    def _section(self) -> Locator:
        return self.page.get_by_role("region", name="Runs")

    def runs(self) -> list[ShownRoutineRun]:
        """Each row: the issue it links to (by its identifier, resolved to the issue's id) and the status it shows."""
        shown = []
        for row in self._section().get_by_role("link").all():
            identifier = (row.get_attribute("href") or "").rsplit("/", 1)[-1]
            issue = product_json(httpx.request, "GET", f"{self.base_url}/api/issues/{identifier}", timeout=15)
            status = row.locator('[data-slot="badge"]').nth(1).inner_text().strip()
            shown.append(ShownRoutineRun(task_id=str(issue["id"]), status=SHOWN_RUN_STATUSES.get(status, status)))
        return shown


class RoutinesPage:
    """Routines, reached from the sidebar, and its Create routine dialog."""

    def __init__(self, page: Page, base_url: str) -> None:
        self.page = page
        self.base_url = base_url.rstrip("/")

    def open(self) -> RoutinesPage:
        self.page.goto(f"{self.base_url}/")
        self.page.get_by_role("link", name="Routines", exact=True).click(timeout=ms(SHOWN_S))
        expect(self.page.get_by_role("main").get_by_role("heading", name="Routines", level=1)).to_be_visible(
            timeout=ms(SHOWN_S)
        )
        return self

    def _picker(self, placeholder: str) -> Locator:
        """One of the dialog's pickers (a dialog of its own beside it), by its search box's placeholder."""
        return self.page.get_by_role("dialog").filter(has=self.page.get_by_placeholder(placeholder))

    def create(self, title: str, instructions: str, agent: str) -> RoutinePage:
        """Fill the dialog, create the routine, and give it a webhook trigger; returns its page (Runs).

        The pinned release's trigger form lists the webhook kind as "COMING SOON" (disabled), so the trigger is added
        through the public route that form calls (``POST /api/routines/{id}/triggers``), as an admin would.
        """
        main = self.page.get_by_role("main")
        main.get_by_role("button", name="Create routine").click(timeout=ms(SHOWN_S))
        dialog = self.page.get_by_role("dialog").filter(has=self.page.get_by_role("textbox", name="Routine title"))
        dialog.get_by_role("textbox", name="Routine title").fill(title)
        dialog.get_by_role("button", name="Responsible").click()
        self._picker("Search responsible...").get_by_role("button", name=agent, exact=True).click()
        self._picker("Search projects...").get_by_role("button", name="No project").click()
        expect(self._picker("Search projects...")).to_have_count(0, timeout=ms(SHOWN_S))
        editor = dialog.get_by_role("textbox", name="editable markdown")
        editor.click()
        editor.fill(instructions)
        dialog.get_by_role("button", name="Create routine").click()
        self.page.wait_for_url(re.compile(r"/routines/[0-9a-f-]{36}/triggers"), timeout=ms(SHOWN_S))
        routine_id = self.page.url.rstrip("/").rsplit("/", 2)[-2]
        add_webhook(self.base_url, routine_id)
        return RoutinePage(self.page, self.base_url, routine_id).open()
