"""Full-page screenshots show the whole page, also where its content scrolls inside a window-high panel."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PIL import Image

from harness.running.screenshots import FullPageCamera

PANEL_LAYOUT = """
<body style="margin:0">
  <div style="height:100vh; overflow-y:auto">
    <div style="height:3000px; background:linear-gradient(white, navy)">a long thread</div>
    <p data-testid="attachments">attachments</p>
  </div>
</body>
"""


def test_a_page_scrolling_inside_a_panel_is_shot_whole_and_keeps_its_window(page: Any, tmp_path: Path) -> None:
    page.set_viewport_size({"width": 800, "height": 600})
    page.set_content(PANEL_LAYOUT)
    shot = tmp_path / "panel.png"
    FullPageCamera(page).take(shot)
    with Image.open(shot) as image:
        assert image.size[0] == 800 and image.size[1] >= 3000, image.size
    assert page.viewport_size == {"width": 800, "height": 600}


def test_a_plain_long_document_is_shot_whole(page: Any, tmp_path: Path) -> None:
    page.set_viewport_size({"width": 800, "height": 600})
    page.set_content('<body style="margin:0"><div style="height:2000px">long</div></body>')
    shot = tmp_path / "plain.png"
    FullPageCamera(page).take(shot)
    with Image.open(shot) as image:
        assert image.size == (800, 2000)
