"""The docs build's hook: the reviewer's guide shows each report view as this revision builds it.

The pictures are taken into a temporary folder and added to the site's files,
so the docs folder is never written to (`mkdocs serve` would rebuild forever).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

from harness.results.report.showcase import photograph

IMAGES = "images/reviewer"
_taken = Path(tempfile.mkdtemp(prefix="everyday-docs-views-"))


def on_files(files: Files, config: Any) -> Files:
    for view, image in photograph(_taken).items():
        target = _taken / IMAGES / f"{view}.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        image.replace(target)
        files.append(File(f"{IMAGES}/{view}.png", str(_taken), config["site_dir"], config["use_directory_urls"]))
    return files
