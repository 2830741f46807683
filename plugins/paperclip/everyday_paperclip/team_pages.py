"""Page objects for Paperclip's team pages: Approvals (a hire waiting for the board) and an agent's page.

Approvals (``/<PREFIX>/approvals/pending``) lists each pending request as a
card linking to its own page (``/<PREFIX>/approvals/<id>``), which offers
Approve and Reject while the request waits. An agent's page
(``/<PREFIX>/agents/<id>``) has Pause (Resume, once paused) in its header, the
agent's status in a chip beside it, and Terminate in its actions menu.
"""

from __future__ import annotations

import re
import time

import httpx
from playwright.sync_api import Locator, Page, expect

from everyday_paperclip.api import PaperclipApi
from everyday_paperclip.pages import SHOWN_S, ms
from harness.core.product_records import Hire, HireApproval, RecordId
from harness.products.http import product_json


def _prefix(base_url: str) -> str:
    """The company's prefix in the UI's paths (the instance has one company)."""
    [company] = product_json(httpx.request, "GET", f"{base_url}/api/companies", timeout=15)
    return str(company["issuePrefix"])


class ApprovalsPage:
    def __init__(self, page: Page, base_url: str) -> None:
        self.page = page
        self.base_url = base_url.rstrip("/")
        self.prefix = _prefix(self.base_url)

    def open(self) -> ApprovalsPage:
        self.page.goto(f"{self.base_url}/{self.prefix}/approvals/pending")
        expect(self.page.get_by_role("tab", name=re.compile("^Pending"))).to_be_visible(timeout=ms(SHOWN_S))
        return self

    def _link(self, approval: HireApproval) -> Locator:
        return self.page.locator(f'main a[href$="/approvals/{approval.id}"]').first

    def wait_for(self, approval: HireApproval, timeout: float = SHOWN_S) -> None:
        """Until the pending list shows the request (a card linking to its page)."""
        expect(self._link(approval)).to_be_visible(timeout=ms(timeout))
        self._link(approval).scroll_into_view_if_needed()

    def decide(self, approval: HireApproval, approve: bool, timeout: float = SHOWN_S) -> None:
        """Open the request's page from its card, press Approve or Reject, and wait until it is no longer offered."""
        self.wait_for(approval, timeout)
        self._link(approval).click()
        self.page.wait_for_url(re.compile(rf"/approvals/{approval.id}"), timeout=ms(timeout))
        main = self.page.get_by_role("main")
        main.get_by_role("button", name="Approve" if approve else "Reject", exact=True).click(timeout=ms(timeout))
        expect(main.get_by_role("button", name="Approve", exact=True)).to_have_count(0, timeout=ms(timeout))


class AgentPage:
    def __init__(self, page: Page, base_url: str, agent_id: RecordId) -> None:
        self.page = page
        self.base_url = base_url.rstrip("/")
        self.agent_id = agent_id

    def open(self) -> AgentPage:
        self.page.goto(f"{self.base_url}/{_prefix(self.base_url)}/agents/{self.agent_id}")
        expect(self._control("Pause").or_(self._control("Resume"))).to_be_visible(timeout=ms(SHOWN_S))
        return self

    def _control(self, name: str) -> Locator:
        return self.page.get_by_role("main").get_by_role("button", name=name, exact=True).first

    def _chip(self, status: str) -> Locator:
        """The agent's status chip showing ``status``."""
        return self.page.get_by_role("main").locator(".status-chip", has_text=re.compile(rf"^\s*{status}\s*$"))

    def pause(self, timeout: float = SHOWN_S) -> None:
        """Pause; Paperclip asks first when the agent has work going ("Pause anyway")."""
        self._control("Pause").click(timeout=ms(timeout))
        anyway = self.page.get_by_role("button", name="Pause anyway")
        expect(self._control("Resume").or_(anyway)).to_be_visible(timeout=ms(timeout))
        if anyway.is_visible():
            anyway.click(timeout=ms(timeout))
        expect(self._control("Resume")).to_be_visible(timeout=ms(timeout))

    def resume(self, timeout: float = SHOWN_S) -> None:
        self._control("Resume").click(timeout=ms(timeout))
        expect(self._control("Pause")).to_be_visible(timeout=ms(timeout))

    def terminate(self, timeout: float = SHOWN_S) -> None:
        """Terminate, from the header's actions menu; Paperclip then shows the agent terminated or leaves its page."""
        self.page.get_by_role("main").get_by_role("button", name=re.compile("^Open actions for ")).first.click(
            timeout=ms(timeout)
        )
        self.page.get_by_role("button", name="Terminate", exact=True).last.click(timeout=ms(timeout))
        chip = self._chip("terminated")
        deadline = time.monotonic() + timeout
        while not (chip.count() and chip.first.is_visible()) and str(self.agent_id) in self.page.url:
            if time.monotonic() > deadline:
                raise TimeoutError(f"timed out after {timeout:.0f} s waiting for the agent page to show it terminated")
            self.page.wait_for_timeout(100)


class HireDesk:
    """How a person hires on Paperclip an agent on the lead's runner, with the lead's connections.

    Paperclip's New agent dialog offers the runtimes it ships (Claude Code, Codex, ...), not the Process runtime the
    scripted agent runs on, and has no connections section: connections are bound to an agent apart from the hire,
    in an app's Access tab. So the hire goes through Paperclip's hire route (``POST .../agent-hires``, what the
    dialog and its hiring agents call), with the lead's runtime settings, and the agent is then bound to the
    connections named; the person watches the Agents page (``/<PREFIX>/agents/all``), whose row for each agent shows
    its name, then its role and title ("QA - QA"), its runtime and its state.
    """

    shows = ("name", "role")  # its row shows no manager, and its runtime in Paperclip's words

    def __init__(self, page: Page, base_url: str, api: PaperclipApi) -> None:
        self.page = page
        self.base_url = base_url.rstrip("/")
        self.api = api
        self.hire: Hire | None = None

    def open(self) -> HireDesk:
        self.page.goto(f"{self.base_url}/{_prefix(self.base_url)}/agents/all")
        # With no agent listed, the empty state offers a second New Agent button.
        new_agent = self.page.get_by_role("main").get_by_role("button", name="New Agent").first
        expect(new_agent).to_be_visible(timeout=ms(SHOWN_S))
        return self

    def fill(self, hire: Hire) -> None:
        """Nothing to type (see the class): the hire is kept for ``submit``."""
        self.hire = hire

    def submit(self) -> None:
        """Hire through the hire route, bind the connections, and wait until the Agents page lists the agent."""
        assert self.hire is not None, "fill comes first"
        self.api.hire(self.hire)
        self.open()
        expect(self._row(self.hire.name)).to_have_count(1, timeout=ms(SHOWN_S))

    def _row(self, name: str) -> Locator:
        return self.page.get_by_role("main").get_by_role("link", name=re.compile(rf"^{re.escape(name)}[A-Z]"))

    def shown_agent(self, name: str) -> dict[str, str | None]:
        """The agent's name and title (the role the person gave) as its row shows them; it shows no manager, and
        its runtime in Paperclip's words (Process), not the runner the person chose."""
        # Paperclip's Agents page lists no terminated agent: a story that terminates one says so (ReadBacks.ended).
        row = self._row(name)
        try:  # the page lists its agents once it has fetched them, after its New Agent button shows
            expect(row).to_have_count(1, timeout=ms(SHOWN_S))
        except AssertionError:
            return {"name": None, "role": None}
        first = row.inner_text().splitlines()[0]  # "MorganQA - QA": the name, then its role's label and its title
        shown = re.match(rf"^({re.escape(name)})[^-]*? - (.*)$", first)
        return {"name": shown.group(1), "role": shown.group(2).strip()} if shown else {"name": name, "role": None}
