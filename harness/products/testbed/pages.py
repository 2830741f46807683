"""Playwright page objects for the testbed's web UI.

Every selector the harness uses lives in this file (``data-testid``, roles,
labels); stories call methods that read like a person's actions and wait for
visible states instead of sleeping.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from playwright.sync_api import Locator, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from harness.core.product_records import DecisionCard, EmailCard, Hire, ProviderQuestionCard, RecordId
from harness.products.controls import download, follow, press, read_all
from harness.products.testbed.declaration import PRODUCT

DEFAULT_TIMEOUT_S = 60.0
# The status a task page's badge shows (null without a badge).
SHOWN_STATUS_JS = """document.querySelector('[data-testid="task-status"]')?.dataset.status ?? null"""
STATUS_POLL_MS = 50
# One interaction card read in one look. The live fragment replaces a card
# when its request changes (answered, or answered through the API while the
# harness reads it); a reader that went part by part timed out on an option
# that had gone between counting the options and reading the second one.
CARD_JS = """card => {
    const all = id => [...card.querySelectorAll(`[data-testid="${id}"]`)];
    const text = id => all(id).map(el => el.innerText.trim());
    const decided = all("interaction-decision")[0];
    const link = all("email-key-link")[0];
    return {
        data: {...card.dataset},
        approve: text("interaction-approve"),
        decline: text("interaction-decline"),
        options: text("provider-option"),
        disclosure: text("provider-disclosure")[0] ?? "",
        choice: decided ? (decided.dataset.choice ?? "") : "",
        key_link: link ? link.getAttribute("href") : null,
        password_fields: card.querySelectorAll('input[type="password"]').length,
        access_selectors: card.querySelectorAll('select, input[type="checkbox"], input[type="radio"]').length,
        modals: document.querySelectorAll('dialog[open], [role="dialog"], [aria-modal="true"]').length,
        text: card.innerText,
    };
}"""
CARD = '[data-testid="interaction-card"]'
T = TypeVar("T")


def _card_selector(interaction_id: int | str) -> str:
    return f'{CARD}[data-interaction-id="{interaction_id}"]'


def ms(seconds: float) -> float:
    return seconds * 1000


@dataclass(frozen=True)
class CommentView:
    id: int
    author_kind: str
    body: str
    consumed_by_run: int | None


@dataclass(frozen=True)
class DeliveryView:
    id: int
    sha256: str


class TaskListPage:
    def __init__(self, page: Page, base_url: str) -> None:
        self.page = page
        self.base_url = base_url.rstrip("/")

    def open(self) -> TaskListPage:
        self.page.goto(f"{self.base_url}/")
        expect(self.page.get_by_test_id("new-task-form")).to_be_visible()
        return self

    def create_agent(
        self, name: str, role: str = "engineer", model: str = "default", reports_to: str | None = None
    ) -> int:
        """Hire an agent on the scripted runner through the form; returns its id."""
        form = HireFormPage(self.page, self.base_url)
        form.fill(Hire(name=name, role=role, reports_to=reports_to or "", adapter="scripted", model=model))
        form.submit()
        return form.hired_id(name)

    def create_task(self, title: str, body: str, assignee: str | None = None) -> TaskPage:
        """Fill the new-task form (assignee by agent name) and land on the new task's page."""
        form = self.page.get_by_test_id("new-task-form")
        form.get_by_label("Title").fill(title)
        form.get_by_label("Description").fill(body)
        if assignee is not None:
            form.get_by_label("Assignee").select_option(label=assignee)
        form.get_by_role("button", name="Create task").click()
        expect(self.page.get_by_test_id("task-page")).to_be_visible()
        task_id = int(self.page.get_by_test_id("task-page").get_attribute("data-task-id") or 0)
        return TaskPage(self.page, self.base_url, task_id)

    def connections_shown(self) -> list[tuple[str, str, str]]:
        """``(service, connection, policy)`` for every connection the services list shows."""
        rows = []
        for service in self.page.get_by_test_id("service-row").all():
            name = service.get_by_test_id("service-name").inner_text().strip()
            for row in service.get_by_test_id("connection-row").all():
                shown = row.get_by_test_id("connection-name").inner_text().strip()
                rows.append((name, shown, row.get_attribute("data-policy") or ""))
        return rows

    def rendered_html(self) -> str:
        """The page's markup as the browser holds it (a check searches it for what must never be rendered)."""
        return self.page.content()

    def status_of(self, task_id: RecordId) -> str:
        row = self.page.locator(f'[data-testid="task-row"][data-task-id="{task_id}"]')
        return row.get_attribute("data-status") or ""


SHOWN_FORM_OPTION_MS = 5_000
"""How long choosing an option of a form already shown may take: the page comes whole from the server, so an option
missing when the form shows never comes (Playwright's default action timeout, 30 s, only delays the failure)."""


AGENT_FIELDS = ("name", "role", "adapter", "model")
"""What the team list shows of an agent, each in its row's ``agent-<field>`` element."""


class HireFormPage:
    """The hire form on the start page: name, role, manager, runner, model and the connections the agent may use."""

    shows = AGENT_FIELDS  # the team list shows no manager

    def __init__(self, page: Page, base_url: str) -> None:
        self.page = page
        self.base_url = base_url.rstrip("/")
        self.name = ""

    def open(self) -> HireFormPage:
        self.page.goto(f"{self.base_url}/")
        expect(self.page.get_by_test_id("new-agent-form")).to_be_visible()
        return self

    def fill(self, hire: Hire) -> None:
        form = self.page.get_by_test_id("new-agent-form")
        form.get_by_label("Name").fill(hire.name)
        form.get_by_label("Role").fill(hire.role)
        if hire.reports_to:
            form.get_by_label("Reports to").select_option(label=hire.reports_to, timeout=SHOWN_FORM_OPTION_MS)
        form.get_by_label("Runner").select_option(value=hire.adapter, timeout=SHOWN_FORM_OPTION_MS)
        form.get_by_label("Model").fill(hire.model)
        for box in form.get_by_test_id("new-agent-connection").all():
            box.set_checked(box.get_attribute("data-connection-id") in {str(c) for c in hire.connection_ids})
        form.scroll_into_view_if_needed()
        self.name = hire.name

    def submit(self) -> None:
        self.page.get_by_test_id("new-agent-form").get_by_role("button", name="Hire").click()
        expect(self.page.get_by_test_id("agent-form-error")).to_have_count(0)
        expect(self._row(self.name)).to_have_count(1)

    def shown_agent(self, name: str) -> dict[str, str | None]:
        """The agent's name, role, runner and model as the team list shows them (it shows no manager), read in one
        look; all None unless exactly one row lists the agent, a field None where its row shows none."""
        rows = read_all(
            self.page,
            f'[data-testid="agent-row"][data-agent-name="{name}"]',
            f"""row => {json.dumps(AGENT_FIELDS)}.map(
                field => row.querySelector(`[data-testid="agent-${{field}}"]`)?.innerText ?? null)""",
        )
        return dict(zip(AGENT_FIELDS, rows[0] if len(rows) == 1 else [None] * len(AGENT_FIELDS), strict=True))

    def hired_id(self, name: str) -> int:
        return int(self._row(name).get_attribute("data-agent-id") or 0)

    def _row(self, name: str) -> Locator:
        return self.page.locator(f'[data-testid="agent-row"][data-agent-name="{name}"]')


class TaskPage:
    shows = ("title", "body")

    def __init__(self, page: Page, base_url: str, task_id: RecordId) -> None:
        self.page = page
        self.base_url = base_url.rstrip("/")
        self.task_id = task_id

    # ---- navigation ----------------------------------------------------------------

    def open(self) -> TaskPage:
        self.page.goto(f"{self.base_url}/tasks/{self.task_id}")
        expect(self.page.get_by_test_id("task-page")).to_be_visible()
        return self

    def reload(self) -> TaskPage:
        self.page.reload()
        expect(self.page.get_by_test_id("task-page")).to_be_visible()
        return self

    def open_child(self, index: int = 0) -> TaskPage:
        link = self.page.get_by_test_id("child-task-link").nth(index)
        child_id = int(link.get_attribute("data-task-id") or 0)
        follow(link, self.page.locator(f'[data-testid="task-page"][data-task-id="{child_id}"]'))
        return TaskPage(self.page, self.base_url, child_id)

    # ---- state ---------------------------------------------------------------------

    @property
    def _status(self) -> Locator:
        return self.page.get_by_test_id("task-status")

    def status(self) -> str:
        return self._status.get_attribute("data-status") or ""

    def wait_until_status(self, status: str, timeout: float = DEFAULT_TIMEOUT_S) -> None:
        """Wait, without reloading, until the live badge shows ``status``.

        The page looks every 50 ms. Playwright's ``expect`` looks again only
        every half second once a quarter second has passed, and the live
        fragment changes the badge the moment the controller pushes the
        change: a badge that changed at 0.3 s was seen at 0.77 s. Not every
        frame either: a wait can last as long as the agent works, and a look
        per frame is CPU taken from the product and the agent on a shared
        machine.
        """
        try:
            self.page.wait_for_function(
                f"status => ({SHOWN_STATUS_JS}) === status", arg=status, polling=STATUS_POLL_MS, timeout=ms(timeout)
            )
        except PlaywrightTimeoutError:
            shown = self.page.evaluate(SHOWN_STATUS_JS)
            raise AssertionError(f"the status badge shows {shown!r}, not {status!r}, after {timeout:.0f} s") from None

    def shown_fields(self) -> dict[str, str | None]:
        """The task's title and description as the page shows them, read in one look."""
        title, body = self.page.evaluate(
            """() => ["task-title-text", "task-body"].map(
                id => document.querySelector(`[data-testid="${id}"]`)?.innerText ?? null)"""
        )
        return {"title": title, "body": body}

    def wait_for_active_run(self, timeout: float = DEFAULT_TIMEOUT_S) -> int:
        """Wait until a run with a runner process is shown; returns its id."""
        active = self.page.locator('[data-testid="active-run"][data-status="running"]:not([data-pid=""])')
        expect(active).to_be_visible(timeout=ms(timeout))
        return int(active.get_attribute("data-run-id") or 0)

    # ---- thread --------------------------------------------------------------------

    def comments(self) -> list[CommentView]:
        """The thread as shown, read in one round trip to the page.

        One read of the whole thread is one moment of it: the live fragment
        replaces the thread while a reader goes item by item, and four reads
        per comment cost a sixth of a second on a five-comment thread.
        """
        rows = read_all(
            self.page,
            '[data-testid="comment"]',
            """item => {
                const body = item.querySelector('[data-testid="comment-body"]');
                return [item.dataset.commentId || "0", item.dataset.authorKind || "",
                        body ? body.innerText : "", item.dataset.consumedByRun || ""];
            }""",
        )
        return [
            CommentView(id=int(id_), author_kind=kind, body=body, consumed_by_run=int(consumed) if consumed else None)
            for id_, kind, body, consumed in rows
        ]

    def user_messages_with(self, text: str) -> list[CommentView]:
        return [c for c in self.comments() if c.author_kind == "user" and c.body.strip() == text.strip()]

    def latest_reply(self) -> CommentView | None:
        replies = [c for c in self.comments() if c.author_kind == "agent"]
        return replies[-1] if replies else None

    def send_message(self, text: str, timeout: float = DEFAULT_TIMEOUT_S) -> CommentView:
        """Type into the composer, send, and wait until the stored message is shown; returns it."""
        composer = self.page.get_by_test_id("composer")
        before = {c.id for c in self.user_messages_with(text)}
        self.submit_message(text)
        expect(composer.get_by_label("Message")).to_have_value("", timeout=ms(timeout))
        return self._poll(
            lambda: next((c for c in self.user_messages_with(text) if c.id not in before), None),
            timeout,
            "the sent message to appear in the thread",
        )

    def submit_message(self, text: str) -> None:
        """Type into the composer and press Send, without waiting for the page to confirm it."""
        composer = self.page.get_by_test_id("composer")
        composer.get_by_label("Message").fill(text)
        press(composer.get_by_role("button", name="Send"))

    def composer_error(self) -> str | None:
        """The reason the composer shows for a message it refused; None while it shows none."""
        error = self.page.get_by_test_id("composer-error")
        return error.inner_text() if error.is_visible() else None

    def composer_text(self) -> str:
        """What the composer holds now (what a person typed stays there when a message is refused)."""
        return self.page.get_by_test_id("composer").get_by_label("Message").input_value()

    def _poll(self, probe: Callable[[], T | None], timeout: float, what: str) -> T:
        """Re-read the live DOM until ``probe`` finds what it looks for."""
        deadline = time.monotonic() + timeout
        while (found := probe()) is None:
            if time.monotonic() > deadline:
                raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")
            self.page.wait_for_timeout(100)
        return found

    def wait_until_consumed(self, comment_id: int, timeout: float = DEFAULT_TIMEOUT_S) -> int:
        """Wait until the thread shows which run read message ``comment_id``; returns that run's id."""
        item = self.page.locator(f'[data-testid="comment"][data-comment-id="{comment_id}"]')
        expect(item).not_to_have_attribute("data-consumed-by-run", "", timeout=ms(timeout))
        return int(item.get_attribute("data-consumed-by-run") or 0)

    def scroll_latest_reply_into_view(self) -> None:
        """The newest agent reply in view, once it is shown.

        The page scrolls it there itself, in one look: Playwright's own scroll
        first waits for the element to hold still over two animation frames,
        which on a busy machine cost more than the look and the scroll.
        """
        replies = self.page.locator('[data-testid="comment"][data-author-kind="agent"]')
        expect(replies.last).to_be_visible()
        replies.last.evaluate("reply => reply.scrollIntoView({block: 'nearest'})")

    # ---- Stop ----------------------------------------------------------------------

    def stop(self, timeout: float = DEFAULT_TIMEOUT_S) -> int:
        """Click Stop on the active run and wait until the page says its processes have exited."""
        run_id = self.wait_for_active_run(timeout)
        self.page.get_by_role("button", name=f"Stop run #{run_id}").click()
        self.wait_for_stop_result(run_id, timeout)
        return run_id

    def click_stop(self, run_id: RecordId, timeout: float = 5.0) -> bool:
        """Click Stop on run ``run_id`` if the page still offers it; False when the page shows the run ended first.

        The live fragment drops the button the moment the run ends, so a run
        that finished on its own is an answer here, not a 30-second hang. The
        page gets the shown budget to show either, so a slow refresh on a
        loaded machine is never read as a run that ended.
        """
        button = self.page.get_by_role("button", name=f"Stop run #{run_id}")
        ended = self.page.locator(
            f'[data-testid="run-row"][data-run-id="{run_id}"]:not([data-status="queued"]):not([data-status="running"])'
        )
        expect(button.or_(ended).first).to_be_visible(timeout=ms(PRODUCT.environments[0].shown_wait_s))
        try:
            button.click(timeout=ms(timeout))
        except PlaywrightTimeoutError:
            return False
        return True

    def wait_for_stop_result(self, run_id: RecordId, timeout: float = DEFAULT_TIMEOUT_S) -> None:
        """Wait until the page reports that run ``run_id`` was stopped and its process group has exited."""
        result = self.page.locator(f'[data-testid="stop-result"][data-run-id="{run_id}"]')
        expect(result).to_have_attribute("data-process-group-gone", "true", timeout=ms(timeout))

    # ---- decisions -------------------------------------------------------------------

    def decision_cards(self) -> list[DecisionCard]:
        """Every decision card as shown, all read at one moment (see ``CARD_JS``)."""
        return [_decision_card(card) for card in read_all(self.page, CARD, CARD_JS)]

    def _card(self, interaction_id: int | str) -> Locator:
        return self.page.locator(_card_selector(interaction_id))

    def _read_card(self, interaction_id: int | str) -> dict:
        """The request's first card, once shown, read in one look (see ``read_all``)."""
        self.wait_for_decision_card(interaction_id)
        return read_all(self.page, _card_selector(interaction_id), CARD_JS)[0]

    def wait_for_decision_card(self, interaction_id: int | str, timeout: float = DEFAULT_TIMEOUT_S) -> None:
        """Until a card for the request is shown (how many there are is for the checks to count)."""
        expect(self._card(interaction_id).first).to_be_visible(timeout=ms(timeout))

    def decide(self, interaction_id: int | str, approve: bool, timeout: float = DEFAULT_TIMEOUT_S) -> None:
        """Click the card's yes (Approve, Connect) or no (Decline, Not now) and wait until it shows the decision."""
        card = self._card(interaction_id)
        card.get_by_test_id("interaction-approve" if approve else "interaction-decline").click(timeout=ms(timeout))
        expect(card.get_by_test_id("interaction-decision")).to_be_visible(timeout=ms(timeout))

    def email_card(self, interaction_id: int | str) -> EmailCard:
        card = self._read_card(interaction_id)
        return EmailCard(
            password_fields=card["password_fields"],
            key_link=card["key_link"],
            access_selectors=card["access_selectors"],
            modals=card["modals"],
            text=card["text"],
        )

    def provider_question(self, interaction_id: int | str) -> ProviderQuestionCard:
        """The question's card as shown: its options in order, its disclosure and, once answered, the choice."""
        card = self._read_card(interaction_id)
        data = card["data"]
        return ProviderQuestionCard(
            interaction_id=data.get("interactionId", ""),
            provider=data.get("provider", ""),
            agent=data.get("agent", ""),
            status=data.get("status", ""),
            options=card["options"],
            disclosure=card["disclosure"],
            choice=card["choice"],
        )

    def choose(self, interaction_id: int | str, option: str, timeout: float = DEFAULT_TIMEOUT_S) -> None:
        """Click one option of a provider question and wait until the card shows the choice."""
        card = self._card(interaction_id)
        card.get_by_role("button", name=option, exact=True).click(timeout=ms(timeout))
        expect(card.get_by_test_id("interaction-decision")).to_be_visible(timeout=ms(timeout))

    def rendered_html(self) -> str:
        return self.page.content()

    # ---- deliveries ----------------------------------------------------------------

    def deliveries(self) -> list[DeliveryView]:
        """The deliveries the thread shows, read at one moment (the live fragment replaces them as it grows)."""
        rows = read_all(
            self.page, '[data-testid="delivery"]', "item => [item.dataset.deliveryId || '0', item.dataset.sha256 || '']"
        )
        return [DeliveryView(id=int(id_), sha256=sha256) for id_, sha256 in rows]

    def wait_for_deliveries(self, count: int, timeout: float = DEFAULT_TIMEOUT_S) -> list[DeliveryView]:
        expect(self.page.get_by_test_id("delivery")).to_have_count(count, timeout=ms(timeout))
        return self.deliveries()

    def download_delivery(self, index: int = -1, save_to: Path | None = None) -> bytes:
        """Click the download link of delivery ``index`` (list order; -1 is the latest) and return its bytes."""
        links = self.page.get_by_test_id("delivery-download")
        return self._download(links.nth(index if index >= 0 else links.count() + index), save_to)

    def download_delivery_id(self, delivery_id: RecordId, timeout: float = DEFAULT_TIMEOUT_S) -> bytes:
        """Click the download link of one delivery, once the thread shows it."""
        item = self.page.locator(f'[data-testid="delivery"][data-delivery-id="{delivery_id}"]')
        expect(item).to_be_visible(timeout=ms(timeout))
        return self._download(item.get_by_test_id("delivery-download"), None)

    def _download(self, link: Locator, save_to: Path | None) -> bytes:
        return download(self.page, link, save_to)


def _decision_card(card: dict) -> DecisionCard:
    """A card read by ``CARD_JS`` as the record the checks judge: a button counts when the card shows exactly one."""
    data = card["data"]
    buttons = {name: card[name][0] for name in ("approve", "decline") if len(card[name]) == 1}
    return DecisionCard(
        interaction_id=data.get("interactionId", ""),
        kind=data.get("kind", ""),
        action=data.get("action", ""),
        service=data.get("service", ""),
        connection_id=data.get("connectionId", ""),
        provider=data.get("provider", ""),
        agent=data.get("agent", ""),
        addressed_to=data.get("addressedTo", ""),
        status=data.get("status", ""),
        buttons=buttons,
    )
