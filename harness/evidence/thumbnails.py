"""Screenshot thumbnails: small JPEGs the pages show, each linking to the full-size PNG.

Full-page screenshots are hundreds of kilobytes; a page of them would be
slow to open and heavy to archive. Thumbnails are cached in the report
folder and remade only when their screenshot is newer, so rebuilding the
report after a new campaign costs only the new attempts' thumbnails. Decoding
PNGs is CPU-bound, so a cold build spreads it over processes.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from PIL import Image, UnidentifiedImageError

THUMB_BOX = (240, 360)
JPEG_QUALITY = 60
# Below this many missing thumbnails, starting worker processes costs more than it saves.
PARALLEL_THRESHOLD = 64


def thumbnail_name(screenshot: Path) -> str:
    return screenshot.stem + ".jpg"


def packaged_thumbnail(screenshot: Path) -> Path:
    """Where the harness keeps a screenshot's thumbnail inside the evidence package."""
    return screenshot.parent / "thumbs" / thumbnail_name(screenshot)


def is_fresh(source: Path, target: Path) -> bool:
    try:
        return target.stat().st_mtime >= source.stat().st_mtime
    except OSError:
        return False


def make_thumbnail(job: tuple[Path, Path]) -> str | None:
    """Write one thumbnail; return an error message instead of raising (a bad PNG is evidence too)."""
    source, target = job
    try:
        with Image.open(source) as image:
            image.thumbnail(THUMB_BOX, reducing_gap=1.5)
            target.parent.mkdir(parents=True, exist_ok=True)
            image.convert("RGB").save(target, "JPEG", quality=JPEG_QUALITY)
    except (OSError, UnidentifiedImageError, ValueError) as error:
        return f"{source.name}: {error}"
    return None


def make_thumbnails(jobs: Sequence[tuple[Path, Path]], workers: int | None = None) -> dict[Path, str]:
    """Make every stale thumbnail; returns {screenshot: error} for those that could not be read."""
    stale = [job for job in jobs if not is_fresh(*job)]
    workers = workers or os.cpu_count() or 1
    if workers > 1 and len(stale) >= PARALLEL_THRESHOLD:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            outcomes = list(pool.map(make_thumbnail, stale, chunksize=32))
    else:
        outcomes = [make_thumbnail(job) for job in stale]
    return {source: error for (source, _), error in zip(stale, outcomes, strict=True) if error}
