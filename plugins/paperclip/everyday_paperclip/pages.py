"""Playwright page objects for Paperclip's web UI (a single-page app).

Paperclip offers few hooks meant for tests, so these use roles, labels and
text first, and Paperclip's own ``data-testid`` / ``data-author`` attributes
where it ships them. Every selector for Paperclip lives in this file, or
for its team pages (Approvals, an agent's page) in ``team_pages``. An issue
lives at ``/<PREFIX>/issues/<IDENTIFIER>``; its thread shows the
description and comments as chat bubbles, its deliveries under Artifacts.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import httpx
from playwright.sync_api import Locator, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from everyday_paperclip.declaration import PAPERCLIP_LOCAL
from harness.core.product_records import DecisionCard, EmailCard
from harness.products.controls import download, press, read_all
from harness.products.http import product_json

DEFAULT_TIMEOUT_S = 60.0
# How long a page may take to show what Paperclip already has (the environment's own figure). Playwright's default
# for an expectation, 5 s, was shorter than a page took to render on a loaded 2-core machine, and a test failed on a
# page that was merely slow.
SHOWN_S = PAPERCLIP_LOCAL.shown_wait_s
T = TypeVar("T")
STATUS_LABELS = {
    "Backlog": "todo",
    "Todo": "todo",
    "In Progress": "in_progress",
    "In Review": "in_review",
    "Blocked": "blocked",
    "Done": "done",
    "Cancelled": "cancelled",
}


def _wait_shown(locator: Locator) -> None:
    """Wait until the page shows ``locator``, within the time Paperclip's pages may take (``SHOWN_S``)."""
    expect(locator).to_be_visible(timeout=ms(SHOWN_S))


def ms(seconds: float) -> float:
    return seconds * 1000


@dataclass(frozen=True)
class MessageView:
    """One bubble of the thread as a person reads it (Paperclip shows no comment ids).

    ``sending``: Paperclip shows a message the moment Send is pressed, faded
    and marked "Sending…" below it, until the product has accepted it.
    """

    author_kind: str
    body: str
    sending: bool


def _issue(base_url: str, issue_id: str) -> dict[str, str]:
    """Where the issue lives in the UI (prefix and identifier), as a person would follow a link."""
    raw = product_json(httpx.request, "GET", f"{base_url}/api/issues/{issue_id}", timeout=15)
    return {"identifier": raw["identifier"], "prefix": raw["identifier"].split("-")[0]}


class IssueListPage:
    def __init__(self, page: Page, base_url: str) -> None:
        self.page = page
        self.base_url = base_url.rstrip("/")

    def open(self) -> IssueListPage:
        self.page.goto(f"{self.base_url}/")
        _wait_shown(self.page.get_by_role("button", name="New Task").first)
        return self

    def create_task(self, title: str, body: str, assignee: str | None = None) -> IssuePage:
        """New Task dialog: title, assignee (by name), description; lands on the new issue's page."""
        self.page.get_by_role("button", name="New Task").first.click()
        dialog = self.page.get_by_role("dialog")
        dialog.get_by_role("textbox", name="Task title").fill(title)
        description = dialog.get_by_role("textbox", name="editable markdown")
        description.click()
        description.fill(body)
        if assignee is not None:
            dialog.get_by_role("button", name="Assignee").click()
            picker = dialog.get_by_role("dialog")
            picker.get_by_role("textbox", name="Search assignees...").fill(assignee)
            picker.get_by_role("button", name=assignee, exact=True).click()
            # Paperclip's form then moves on by itself: on the next frame it focuses the Project field, which
            # opens its picker. A person answers it; "No project" is the task as asked. (A click beside the
            # picker raced that frame: made before it, it closed nothing, and the picker opened over the form.)
            projects = dialog.get_by_role("dialog").filter(has=self.page.get_by_placeholder("Search projects..."))
            projects.get_by_role("button", name="No project").click()
            expect(picker).to_be_hidden(timeout=ms(SHOWN_S))
            _wait_shown(dialog.get_by_role("button", name=assignee, exact=True))
        with self.page.expect_response(
            lambda r: r.request.method == "POST" and re.search(r"/api/companies/[^/]+/issues$", r.url) is not None
        ) as created:
            dialog.get_by_role("button", name="Create Task").click()
        issue_id = created.value.json()["id"]
        return IssuePage(self.page, self.base_url, issue_id).open()


class ConnectionsPage:
    """Apps > Connections: the apps connected, their health and actions, as a person reaches it from the sidebar."""

    def __init__(self, page: Page, base_url: str) -> None:
        self.page = page
        self.base_url = base_url.rstrip("/")

    def open(self) -> ConnectionsPage:
        self.page.goto(f"{self.base_url}/")
        self.page.get_by_role("link", name="Apps", exact=True).click(timeout=ms(SHOWN_S))
        self.page.get_by_role("link", name="Connections", exact=True).click(timeout=ms(SHOWN_S))
        _wait_shown(self.page.get_by_role("main").get_by_role("heading", name="Connections"))
        _wait_shown(self.page.get_by_role("main").get_by_role("row").nth(1))
        return self

    def rendered_html(self) -> str:
        return self.page.content()


class IssuePage:
    shows = ("title", "body")

    def __init__(self, page: Page, base_url: str, task_id: str) -> None:
        self.page = page
        self.base_url = base_url.rstrip("/")
        self.task_id = task_id
        self._where: dict[str, str] | None = None

    @property
    def url(self) -> str:
        if self._where is None:
            self._where = _issue(self.base_url, self.task_id)
        return f"{self.base_url}/{self._where['prefix']}/issues/{self._where['identifier']}"

    # ---- navigation ----------------------------------------------------------------

    def _loaded(self) -> None:
        _wait_shown(self.page.get_by_role("main").get_by_role("heading", level=2).first)
        expect(self.page.get_by_role("button", name="Send")).to_be_attached(timeout=ms(SHOWN_S))

    def open(self) -> IssuePage:
        self.page.goto(self.url)
        self._loaded()
        return self

    def reload(self) -> IssuePage:
        self.page.reload()
        self._loaded()
        return self

    def open_child(self, index: int = 0) -> IssuePage:
        """Follow a child issue's link from the parent's page (its identifier links to it)."""
        prefix = self.url.rsplit("/", 1)[1].split("-")[0]
        mine = self.url.rsplit("/", 1)[1]
        links = self.page.locator(f'a[href*="/{prefix}/issues/{prefix}-"]').filter(
            has_not=self.page.locator(f'[href$="/{mine}"]')
        )
        link = links.filter(has_not_text=mine).nth(index)
        _wait_shown(link)
        link.click()
        self.page.wait_for_url(re.compile(rf"/{prefix}/issues/{prefix}-\d+$"))
        identifier = self.page.url.rsplit("/", 1)[1]
        raw = product_json(httpx.request, "GET", f"{self.base_url}/api/issues/{identifier}", timeout=15)
        child = IssuePage(self.page, self.base_url, raw["id"])
        child._loaded()
        return child

    # ---- state ---------------------------------------------------------------------

    @property
    def _status_button(self) -> Locator:
        return self.page.get_by_role("main").get_by_role("button", name=re.compile(r"^Change status \(current: "))

    def status(self) -> str:
        name = self._status_button.first.get_attribute("aria-label") or ""
        label = re.sub(r"^Change status \(current: (.*)\)$", r"\1", name)
        return STATUS_LABELS.get(label, label.lower().replace(" ", "_"))

    def wait_until_status(self, status: str, timeout: float = DEFAULT_TIMEOUT_S) -> None:
        """Wait, without reloading, until the header's status shows ``status``."""
        label = next((k for k, v in STATUS_LABELS.items() if v == status and k != "Backlog"), status)
        expect(
            self.page.get_by_role("main").get_by_role("button", name=f"Change status (current: {label})").first
        ).to_be_visible(timeout=ms(timeout))

    def shown_fields(self) -> dict[str, str | None]:
        """The issue's title (its heading) and description (the thread's first bubble).

        The description is None where the page shows no description bubble.
        """
        title = self.page.get_by_role("main").get_by_role("heading", level=2).first.inner_text()
        body = self.page.evaluate(
            """() => {
                const brief = document.querySelector('[data-testid="task-chat-description-bubble"]');
                return brief ? (brief.querySelector(".paperclip-markdown") ?? brief).innerText : null;
            }"""
        )
        return {"title": title, "body": body}

    # ---- thread --------------------------------------------------------------------

    def messages(self) -> list[MessageView]:
        """The comment bubbles of the thread, oldest first (the description bubble is not a message).

        All bubbles are read in one look: the thread re-renders as the agent
        replies, and a reader going bubble by bubble can wait on one that went.
        """
        rows = read_all(
            self.page,
            '[data-testid="task-chat-human-bubble"], [data-testid="task-chat-agent-bubble"]',
            """bubble => [
                bubble.dataset.testid === "task-chat-human-bubble" ? "user" : "agent",
                (bubble.querySelector(".paperclip-markdown") ?? bubble).innerText,
                (bubble.nextElementSibling?.innerText ?? "").trim() === "Sending…",
            ]""",
        )
        return [MessageView(author_kind=kind, body=body.strip(), sending=sending) for kind, body, sending in rows]

    def user_messages_with(self, text: str) -> list[MessageView]:
        wanted = " ".join(text.split())
        return [m for m in self.messages() if m.author_kind == "user" and " ".join(m.body.split()) == wanted]

    def latest_reply(self) -> MessageView | None:
        replies = [m for m in self.messages() if m.author_kind == "agent"]
        return replies[-1] if replies else None

    def send_message(self, text: str, timeout: float = DEFAULT_TIMEOUT_S) -> MessageView:
        """Type into the composer, send, and wait until the thread shows the message once more than before, sent.

        Not while it says "Sending…": the product has not stored it yet, and
        a reload then could find it nowhere (a test once read no message).
        """
        before = len(self.user_messages_with(text))
        self.submit_message(text)
        return self._poll(
            lambda: next((m for m in self.user_messages_with(text)[before:] if not m.sending), None),
            timeout,
            "the sent message to appear in the thread, sent",
        )

    def submit_message(self, text: str) -> None:
        composer = self.page.get_by_role("main").get_by_role("textbox", name="editable markdown").last
        composer.click()
        composer.fill(text)
        press(self.page.get_by_role("button", name="Send"))

    def _poll(self, probe: Callable[[], T | None], timeout: float, what: str) -> T:
        deadline = time.monotonic() + timeout
        while (found := probe()) is None:
            if time.monotonic() > deadline:
                raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")
            self.page.wait_for_timeout(100)
        return found

    def scroll_latest_reply_into_view(self) -> None:
        bubbles = self.page.locator('[data-testid="task-chat-agent-bubble"]')
        _wait_shown(bubbles.last)
        bubbles.last.scroll_into_view_if_needed()

    # ---- Stop ----------------------------------------------------------------------

    def _run_url(self, run_id: str) -> str:
        """The run's own page, where Paperclip offers Cancel (the issue page has no Stop for a running run)."""
        run = product_json(httpx.request, "GET", f"{self.base_url}/api/heartbeat-runs/{run_id}", timeout=15)
        prefix = self.url.rsplit("/", 1)[1].split("-")[0]
        return f"{self.base_url}/{prefix}/agents/{run['agentId']}/runs/{run_id}"

    @property
    def _cancel_button(self) -> Locator:
        return self.page.get_by_role("main").get_by_role("button", name="Cancel", exact=True)

    def click_stop(self, run_id: str, timeout: float = 5.0) -> bool:
        """Paperclip's Stop: open the run's page (the agent's "Live Run" link leads there) and click Cancel.

        False when the run ended first (the page shows the run but offers no
        Cancel within ``timeout``). The run page is a slow page of its own:
        it gets the shown budget to show the run before Cancel is looked for,
        so a loaded machine is never read as a run that ended. After the
        click, waits until the run page no longer offers Cancel and shows the
        run's end, then goes back to the issue, as a person would.
        """
        self.page.goto(self._run_url(run_id))
        _wait_shown(self.page.get_by_role("main").get_by_text("Duration:").first)
        try:
            self._cancel_button.click(timeout=ms(timeout))
        except PlaywrightTimeoutError:
            self.open()
            return False
        expect(self._cancel_button).to_have_count(0, timeout=ms(DEFAULT_TIMEOUT_S))
        try:
            expect(self._run_status("cancelled")).to_be_visible(timeout=ms(DEFAULT_TIMEOUT_S / 4))
        except AssertionError:
            pass  # the run ended otherwise; the story reads how from the API
        self.open()
        return True

    def _run_status(self, status: str) -> Locator:
        return self.page.get_by_role("main").get_by_text(status, exact=True).first

    def wait_for_stop_result(self, run_id: str, timeout: float = DEFAULT_TIMEOUT_S) -> None:
        """The run's page says it was cancelled and offers Cancel no more; then back to the issue."""
        self.page.goto(self._run_url(run_id))
        expect(self._cancel_button).to_have_count(0, timeout=ms(timeout))
        expect(self._run_status("cancelled")).to_be_visible(timeout=ms(timeout))
        self.open()

    # ---- decision cards (Ask-first tool actions) ----------------------------------------

    def decision_cards(self) -> list[DecisionCard]:
        """Every card in the thread, all read in one look (see ``read_all``)."""
        return [_decision_card(*row) for row in read_all(self.page, CARD, CARD_JS)]

    def _card(self, interaction_id: str) -> Locator:
        return self.page.locator(f'{CARD}[id="interaction-{interaction_id}"]')

    def wait_for_decision_card(self, interaction_id: str, timeout: float = DEFAULT_TIMEOUT_S) -> None:
        """Until the thread shows the card; a card posted while the page was open may need one reload."""
        card = self._card(interaction_id).first
        try:
            expect(card).to_be_visible(timeout=ms(min(timeout, SHOWN_S) / 2))
        except AssertionError:
            self.reload()
            expect(card).to_be_visible(timeout=ms(timeout))

    def decide(self, interaction_id: str, approve: bool, timeout: float = DEFAULT_TIMEOUT_S) -> None:
        """Approve & run, or Decline and confirm Decline (no reason given); wait until the card shows who decided."""
        card = self._card(interaction_id)
        if approve:
            card.get_by_role("button", name=APPROVE).click(timeout=ms(timeout))
        else:
            card.get_by_role("button", name="Decline", exact=True).first.click(timeout=ms(timeout))
            confirm = card.get_by_role("button", name="Decline", exact=True)
            expect(confirm).to_have_count(2, timeout=ms(timeout))
            confirm.last.click(timeout=ms(timeout))
        expect(card.get_by_text(DECIDED).first).to_be_visible(timeout=ms(timeout))

    def email_card(self, interaction_id: str) -> EmailCard:
        raise NotImplementedError("Paperclip's pinned release has no email setup card")

    def rendered_html(self) -> str:
        return self.page.content()

    # ---- deliveries ----------------------------------------------------------------

    def download_delivery_id(self, delivery_id: str, timeout: float = DEFAULT_TIMEOUT_S) -> bytes:
        """Open the Artifacts tab and click the file's link, once it is listed.

        Neither the tab nor a new file is added live to an open page (seen
        with 2026.824.1); a person reloads, and so does this, once.
        """
        link = self.page.locator(f'a[href^="/api/attachments/{delivery_id}/content"]').first
        tab = self.page.get_by_role("tab", name="Artifacts")
        try:
            tab.click(timeout=ms(5))
            expect(link).to_be_visible(timeout=ms(5))
        except (AssertionError, PlaywrightTimeoutError):
            self.reload()
            tab.click(timeout=ms(timeout))
            expect(link).to_be_visible(timeout=ms(timeout))
        data = self._download(link, None)
        self.page.get_by_role("tab", name="Properties").click()
        return data

    def _download(self, link: Locator, save_to: Path | None) -> bytes:
        return download(self.page, link, save_to)


# A card in the thread; Paperclip anchors each at ``interaction-<id>`` (a link to it lands there).
CARD = '[data-testid="task-chat-interaction"]'
# One look at a card: its anchor, its text as shown (line by line), its buttons, its addressee badge.
CARD_JS = """card => [
    card.id.replace(/^interaction-/, ""),
    card.innerText,
    [...card.querySelectorAll("button")].map(b => b.innerText.trim()),
    card.querySelector('[data-testid="interaction-addressee-badge"]')?.innerText.trim() ?? "",
]"""
APPROVE = re.compile(r"^Approve\b")
DECLINE = re.compile(r"^(Decline|Reject)\b")
# What a decided tool-action card says: "Executed · approved by You at ...", "Declined by You at ...".
DECIDED = re.compile(r"(?:approved|Approved|Declined) by ")
# The card's state badge (after the kind and a slash), as Paperclip words it.
CARD_STATES = {
    "awaiting approval": "pending",
    "running…": "approved",
    "executed": "approved",
    "failed": "approved",
    "declined": "declined",
    "expired": "expired",
}
RISKS = ("WRITE", "DESTRUCTIVE")


def _decision_card(interaction_id: str, text: str, buttons: list[str], addressee: str) -> DecisionCard:
    """A card read as the person sees it.

    A tool-action card shows the tool's name over its risk badge (WRITE or
    DESTRUCTIVE), then ``<app> · <gateway tool name>``, and "proposed by
    <agent>". It shows no connection id: ``connection_id`` is None (not
    shown), which the checks do not compare.
    """
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    risk = next((n for n, line in enumerate(lines) if line in RISKS and n > 0), None)
    state = lines[2].lower() if len(lines) > 2 and lines[1] == "/" else ""
    approve = [b for b in buttons if APPROVE.match(b)]
    decline = [b for b in buttons if DECLINE.match(b)]
    shown = {"approve": approve, "decline": decline[:1]}  # Decline opens a confirmation with a second Decline
    return DecisionCard(
        interaction_id=interaction_id,
        kind="service_action" if risk is not None else "",
        action=lines[risk - 1] if risk is not None else "",
        service=lines[risk + 1].split(" · ")[0] if risk is not None and risk + 1 < len(lines) else "",
        connection_id=None,
        agent=next((line.removeprefix("proposed by ") for line in lines if line.startswith("proposed by ")), ""),
        addressed_to=addressee.removeprefix("For ") or "user",
        status=CARD_STATES.get(state, state),
        buttons={name: labels[0] for name, labels in shown.items() if len(labels) == 1},
    )
