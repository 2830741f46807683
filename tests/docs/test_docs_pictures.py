"""The docs build photographs the report's views as this revision builds them (``make docs``)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from mkdocs.structure.files import Files
from PIL import Image
from playwright.sync_api import Browser

from tests.needs import marked

HOOKS = Path(__file__).resolve().parents[2] / "scripts" / "mkdocs_hooks.py"


def _load_hooks() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mkdocs_hooks", HOOKS)
    assert spec is not None and spec.loader is not None
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    return hooks


@marked("browser")
def test_each_view_of_the_reviewers_guide_is_a_real_picture(tmp_path: Path, browser: Browser) -> None:
    """Photographed in the session's browser: the docs build launches its own, which a test process whose
    Playwright already runs could not (one sync Playwright per thread)."""
    images = _load_hooks().photograph(tmp_path, browser)
    assert set(images) == {"timeline", "versus", "search"}
    for image in images.values():
        with Image.open(image) as picture:
            assert picture.width > 400 and len(picture.getcolors(1 << 16) or range(2)) > 1, image


def test_a_docs_build_leaves_no_temporary_folder_behind(tmp_path: Path) -> None:
    """``make lint``'s strict build runs the hook on every commit: its pictures' folder goes when the build ends."""
    hooks = _load_hooks()
    files = hooks.on_files(Files([]), {"site_dir": str(tmp_path / "site"), "use_directory_urls": True})
    taken = Path(next(iter(files)).src_dir)
    assert taken.is_dir() and sorted(p.name for p in taken.rglob("*.png")) == [
        "search.png",
        "timeline.png",
        "versus.png",
    ]
    hooks.on_shutdown()
    assert not taken.exists()
