"""Playwright page objects for Paperclip's web UI (placeholder, filled in below)."""
from __future__ import annotations
from typing import Any
class IssueListPage:
    def __init__(self, page: Any, base_url: str) -> None: ...
class IssuePage:
    def __init__(self, page: Any, base_url: str, task_id: str) -> None: ...
