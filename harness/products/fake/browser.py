"""A stand-in for the browser a journey holds, for the fake product: screenshots without Chromium, a trace of nothing.

The fake's pages ignore the page they are handed, so what a journey asks of
the browser itself is its camera (a DevTools session answering one small
PNG) and, at the end, closing its pages and keeping a trace.
"""

from __future__ import annotations

import base64
import io
from pathlib import Path
from typing import Any

from PIL import Image


def _png() -> str:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), "white").save(buffer, format="PNG")
    return base64.b64encode(buffer.getvalue()).decode()


class _Session:
    def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        if method == "Page.getLayoutMetrics":
            size = {"width": 8, "height": 8, "clientWidth": 8, "clientHeight": 8}
            return {"cssContentSize": size, "cssLayoutViewport": size}
        return {"data": _png()}


class _Tracing:
    def stop(self, path: Path) -> None:
        """An empty trace: the fake has no page to record."""
        Path(path).write_bytes(b"")


class FakeBrowserContext:
    def __init__(self) -> None:
        self.pages: list[FakeBrowserPage] = []
        self.tracing = _Tracing()

    def new_page(self) -> FakeBrowserPage:
        page = FakeBrowserPage(self)
        self.pages.append(page)
        return page

    def new_cdp_session(self, page: FakeBrowserPage) -> _Session:
        return _Session()

    def close(self) -> None:
        self.pages.clear()


class FakeBrowserPage:
    viewport_size = None
    url = "about:blank"  # the fake's page objects never navigate it

    def __init__(self, context: FakeBrowserContext) -> None:
        self.context = context

    def close(self) -> None:
        """Nothing to close."""
