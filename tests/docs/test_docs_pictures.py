"""The docs build photographs the report's views as this revision builds them (``make docs``)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from PIL import Image
from playwright.sync_api import Browser

from tests.needs import marked

HOOKS = Path(__file__).resolve().parents[2] / "scripts" / "mkdocs_hooks.py"


@marked("browser")
def test_each_view_of_the_reviewers_guide_is_a_real_picture(tmp_path: Path, browser: Browser) -> None:
    """Photographed in the session's browser: the docs build launches its own, which a test process whose
    Playwright already runs could not (one sync Playwright per thread)."""
    spec = importlib.util.spec_from_file_location("mkdocs_hooks", HOOKS)
    assert spec is not None and spec.loader is not None
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    images = hooks.photograph(tmp_path, browser)
    assert set(images) == {"timeline", "versus", "search"}
    for image in images.values():
        with Image.open(image) as picture:
            assert picture.width > 400 and len(picture.getcolors(1 << 16) or range(2)) > 1, image
