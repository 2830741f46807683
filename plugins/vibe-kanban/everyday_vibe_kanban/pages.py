"""vibe-kanban's pages as a person uses them: the board, a task's panel, its conversation, the follow-up box and Stop.

Controls are found by their role and accessible name or their placeholder
(what a person reads): "Create new task", the dialog's "What needs to be
done?" and "Create & Start", the panel's "Continue working on this task
attempt..." box with Send, and Stop. The conversation's entries carry no
roles; each is a list item (``data-item-index``) whose icon says who wrote
it (a person's or the bot's), which is the one place this module reads the
markup's structure.

What a person takes away is the attempt's branch, which the panel names
("Branch · vk-..."); the delivery's bytes are that branch's commit, read
from the project's repository (:mod:`.delivery`), once the panel shows the
branch.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from playwright.sync_api import Locator, Page, expect

from everyday_vibe_kanban.delivery import zip_of
from harness.core.waiting import wait_for
from harness.products.controls import DEFAULT_TIMEOUT_S, read_all

STATUS_LABELS = {
    "To Do": "todo",
    "In Progress": "in_progress",
    "In Review": "in_review",
    "Done": "done",
    "Cancelled": "cancelled",
}
BRANCH = re.compile(r"vk-[0-9a-f]{4}-[\w-]+")
FOLLOW_UP = "Continue working on this task attempt"
# While the agent runs, the panel shows Stop where Send was: a person types, then waits for Send. That is the
# agent's time, bounded by the attempt's deadline, not a page's.
AGENT_TURN_S = 300.0
ENTRY = "[data-item-index]"
SETTLED_LOOKS = 3
"""Looks a quarter of a second apart that must count the same entries before the thread counts as loaded."""
READ_ENTRY = """e => ({
    author_kind: e.querySelector('svg.lucide-user') ? 'user' : e.querySelector('svg.lucide-bot') ? 'agent' : 'tool',
    body: (e.querySelector('.whitespace-pre-wrap') || e).innerText.trim(),
})"""


def ms(seconds: float) -> float:
    return seconds * 1000


@dataclass(frozen=True)
class Entry:
    """One entry of the conversation as the page shows it."""

    author_kind: str
    body: str


class BoardPage:
    """The project's board, where a person creates a task and starts it."""

    def __init__(self, page: Page, base_url: str, project_id: str, repo: Any) -> None:
        self.page = page
        self.base_url = base_url.rstrip("/")
        self.project_id = project_id
        self.repo = repo

    def open(self) -> BoardPage:
        self.page.goto(f"{self.base_url}/projects/{self.project_id}/tasks")
        expect(self.page.get_by_role("button", name="Create new task")).to_be_visible(timeout=ms(DEFAULT_TIMEOUT_S))
        return self

    def create_task(self, title: str, body: str, assignee: str | None = None) -> TaskPanel:
        """Create New Task: title, description, then Create & Start (the default profile, the hired agent)."""
        self.page.get_by_role("button", name="Create new task").click()
        self.page.get_by_placeholder("What needs to be done?").fill(title)
        self.page.get_by_placeholder("Add more details", exact=False).fill(body)
        self.page.get_by_role("button", name="Create & Start").click()
        expect(self.page).to_have_url(re.compile(r"/tasks/[0-9a-f-]{36}$"), timeout=ms(DEFAULT_TIMEOUT_S))
        task_id = self.page.url.rstrip("/").rsplit("/", 1)[-1]
        return TaskPanel(self.page, self.base_url, task_id, self.project_id, self.repo)._loaded()


class TaskPanel:
    """A task's panel beside the board: its status, the latest attempt's conversation, follow-up and Stop."""

    # This page object has no reading of the panel's title and description apart from the attempt's prompt (the
    # conversation's first entry): it declares neither, so neither is compared.
    shows: tuple[str, ...] = ()

    def __init__(self, page: Page, base_url: str, task_id: str, project_id: str, repo: Any) -> None:
        self.page = page
        self.base_url = base_url.rstrip("/")
        self.task_id = task_id
        self.project_id = project_id
        self.repo = repo

    @property
    def url(self) -> str:
        return f"{self.base_url}/projects/{self.project_id}/tasks/{self.task_id}"

    def _loaded(self) -> TaskPanel:
        """The header and the conversation, settled: the panel loads the thread after the rest, the prompt first
        and each later turn's entries as their logs stream in, so a reading right after a reload waits until
        the number of entries stops changing (every task here was started, so there is at least one)."""
        expect(self._header).to_be_visible(timeout=ms(DEFAULT_TIMEOUT_S))
        expect(self.page.locator(ENTRY).first).to_be_visible(timeout=ms(DEFAULT_TIMEOUT_S))
        counts: list[int] = []

        def settled() -> bool:
            counts.append(self.page.locator(ENTRY).count())
            return len(counts) >= SETTLED_LOOKS and len(set(counts[-SETTLED_LOOKS:])) == 1

        wait_for(settled, timeout=DEFAULT_TIMEOUT_S, interval=0.25, what="the conversation to finish loading")
        return self

    def open(self) -> TaskPanel:
        self.page.goto(self.url)
        return self._loaded()

    def reload(self) -> TaskPanel:
        self.page.reload()
        return self._loaded()

    def open_child(self, index: int = 0) -> TaskPanel:
        raise NotImplementedError("vibe-kanban tasks have no child tasks")

    # ---- status --------------------------------------------------------------------

    @property
    def _header(self) -> Locator:
        """The panel's header row: the status dot and label, beside "Expand to fullscreen"."""
        expand = self.page.get_by_role("button", name="Expand to fullscreen")
        return self.page.locator("div").filter(has=expand).filter(has=self.page.locator("p")).last

    def status(self) -> str:
        label = self._header.locator("p").first.inner_text().strip()
        return STATUS_LABELS.get(label, label.lower().replace(" ", "_"))

    def wait_until_status(self, status: str, timeout: float = DEFAULT_TIMEOUT_S) -> None:
        label = next(k for k, v in STATUS_LABELS.items() if v == status)
        expect(self._header.locator("p").first).to_have_text(label, timeout=ms(timeout))

    def shown_fields(self) -> dict[str, str | None]:
        """Nothing: the panel declares no field it shows (see ``shows``)."""
        return {}

    # ---- conversation ----------------------------------------------------------------

    def entries(self) -> list[Entry]:
        return [Entry(**raw) for raw in read_all(self.page, ENTRY, READ_ENTRY)]

    def user_messages_with(self, text: str) -> list[Entry]:
        wanted = " ".join(text.split())
        return [e for e in self.entries() if e.author_kind == "user" and " ".join(e.body.split()) == wanted]

    def latest_reply(self) -> Entry | None:
        replies = [e for e in self.entries() if e.author_kind == "agent"]
        return replies[-1] if replies else None

    def scroll_latest_reply_into_view(self) -> None:
        self.page.locator(ENTRY).last.scroll_into_view_if_needed()

    @property
    def _follow_up(self) -> Locator:
        return self.page.get_by_placeholder(FOLLOW_UP, exact=False)

    def submit_message(self, text: str) -> None:
        """Type into the follow-up box and press Send, which the panel offers once the attempt's run has ended."""
        self._follow_up.fill(text)
        send = self.page.get_by_role("button", name="Send")
        expect(send).to_be_enabled(timeout=ms(AGENT_TURN_S))
        send.click()

    def send_message(self, text: str, timeout: float = DEFAULT_TIMEOUT_S) -> Entry:
        """Send a follow-up and wait until the conversation shows it."""
        self.submit_message(text)
        wanted = " ".join(text.split())
        entry = self.page.locator(ENTRY).filter(has=self.page.locator("svg.lucide-user")).filter(has_text=wanted)
        expect(entry.last).to_be_visible(timeout=ms(timeout))
        return Entry("user", text)

    # ---- Stop -----------------------------------------------------------------------

    def click_stop(self, run_id: Any, timeout: float = DEFAULT_TIMEOUT_S) -> bool:
        stop = self.page.get_by_role("button", name="Stop")
        if not stop.is_visible():
            return False
        stop.click(timeout=ms(timeout))
        return True

    def wait_for_stop_result(self, run_id: Any, timeout: float = DEFAULT_TIMEOUT_S) -> None:
        expect(self.page.get_by_role("button", name="Stop")).to_be_hidden(timeout=ms(timeout))

    # ---- the delivery: the attempt's branch -------------------------------------------

    def shown_branch(self, timeout: float = DEFAULT_TIMEOUT_S) -> str:
        """The branch the panel names for the latest attempt ("Branch · vk-...")."""
        shown = self.page.get_by_text(BRANCH).last
        expect(shown).to_be_visible(timeout=ms(timeout))
        found = BRANCH.search(shown.inner_text())
        if found is None:
            raise AssertionError(f"the panel names no branch: {shown.inner_text()!r}")
        return found.group(0)

    def download_delivery_id(self, delivery_id: Any, timeout: float = DEFAULT_TIMEOUT_S) -> bytes:
        """The delivery's commit on the branch the panel names, as a ZIP (what a person would check out)."""
        branch = self.shown_branch(timeout)
        return zip_of(self.repo, f"{delivery_id}") if _on_branch(self.repo, branch, str(delivery_id)) else b""


def _on_branch(repo: Any, branch: str, sha: str) -> bool:
    import subprocess

    merged = subprocess.run(
        ["git", "-C", str(repo), "merge-base", "--is-ancestor", sha, f"refs/heads/{branch}"], capture_output=True
    )
    return merged.returncode == 0
