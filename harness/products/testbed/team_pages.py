"""Page objects for the testbed's team pages: the start page's Approvals and an agent's page with its controls.

Selectors for these pages live here (``data-testid``, roles); each press
waits for the state the page then shows, never for a time.
"""

from __future__ import annotations

from playwright.sync_api import Locator, Page, expect

from harness.core.product_records import HireApproval, RecordId

DEFAULT_TIMEOUT_S = 15.0


def ms(seconds: float) -> float:
    return seconds * 1000


class ApprovalsPanel:
    """The start page's Approvals: each hire waiting for the board, with Approve and Reject."""

    def __init__(self, page: Page, base_url: str) -> None:
        self.page = page
        self.base_url = base_url.rstrip("/")

    def open(self) -> ApprovalsPanel:
        self.page.goto(f"{self.base_url}/")
        expect(self.page.get_by_test_id("approvals")).to_be_visible()
        return self

    def _row(self, approval: HireApproval) -> Locator:
        return self.page.locator(f'[data-testid="approval-row"][data-approval-id="{approval.id}"]')

    def wait_for(self, approval: HireApproval, timeout: float = DEFAULT_TIMEOUT_S) -> None:
        expect(self._row(approval)).to_have_attribute("data-status", "pending", timeout=ms(timeout))
        self._row(approval).scroll_into_view_if_needed()

    def decide(self, approval: HireApproval, approve: bool, timeout: float = DEFAULT_TIMEOUT_S) -> None:
        row = self._row(approval)
        row.get_by_role("button", name="Approve" if approve else "Reject").click(timeout=ms(timeout))
        expect(row.get_by_role("button")).to_have_count(0, timeout=ms(timeout))
        row.scroll_into_view_if_needed()


class AgentPage:
    """An agent's page: its status badge and its Pause, Resume and Terminate buttons."""

    def __init__(self, page: Page, base_url: str, agent_id: RecordId) -> None:
        self.page = page
        self.base_url = base_url.rstrip("/")
        self.agent_id = agent_id

    def open(self) -> AgentPage:
        self.page.goto(f"{self.base_url}/agents/{self.agent_id}")
        expect(self.page.get_by_test_id("agent-page")).to_be_visible()
        return self

    def _press(self, button: str, status: str, timeout: float) -> None:
        self.page.get_by_role("button", name=button).click(timeout=ms(timeout))
        expect(self.page.get_by_test_id("agent-page")).to_have_attribute("data-status", status, timeout=ms(timeout))

    def pause(self, timeout: float = DEFAULT_TIMEOUT_S) -> None:
        self._press("Pause", "paused", timeout)

    def resume(self, timeout: float = DEFAULT_TIMEOUT_S) -> None:
        self._press("Resume", "active", timeout)

    def terminate(self, timeout: float = DEFAULT_TIMEOUT_S) -> None:
        self._press("Terminate", "terminated", timeout)
