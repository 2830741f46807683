"""Paperclip's implementation of the product driver protocol."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.products.base import InstanceError
from harness.products.paperclip import install
from harness.products.paperclip.instance import PaperclipInstance
from harness.products.paperclip.pages import IssueListPage, IssuePage
from harness.products.paperclip.secrets import SECRET_PATTERNS
from harness.products.records import RecordId


class PaperclipDriver:
    name = "paperclip"
    secret_patterns = SECRET_PATTERNS

    def version(self) -> str | None:
        """The installed ``paperclipai`` release (the pin, once ``make paperclip`` ran)."""
        return install.installed_version()

    def start_instance(
        self,
        pace_s: float,
        defects: Sequence[str] = (),
        model_upstream: str | None = None,
        agent_time_limit_s: float | None = None,
    ) -> PaperclipInstance:
        """Paperclip is judged as it ships: it has no defects to switch on, so any name is refused."""
        if defects:
            raise InstanceError(f"Paperclip has no product defects to switch on (asked for {', '.join(defects)})")
        if model_upstream or agent_time_limit_s:
            raise InstanceError(
                "agent CLIs on Paperclip (replay and live profiles) are not wired yet; use the scripted agent"
            )
        instance = PaperclipInstance(pace=pace_s)
        try:
            return instance.start()
        except BaseException:
            instance.close()
            raise

    def task_list(self, page: Any, base_url: str) -> IssueListPage:
        return IssueListPage(page, base_url)

    def task_page(self, page: Any, base_url: str, task_id: RecordId) -> IssuePage:
        return IssuePage(page, base_url, str(task_id))

    def task_skills(self, page: Any, base_url: str, task_id: RecordId) -> Any:
        raise NotImplementedError(
            "create-skill-studio: skill cards, the skills sidebar and Skill Studio are not wired for Paperclip"
        )
