"""Two screenshots compared pixel by pixel with Pillow when the report is built, cached by the pair of hashes.

A page opened from file:// cannot read its own images' pixels from a canvas
(opaque origin), so the figures and the diff image are made here. A pixel
counts as changed when any channel differs at all: the screenshots come from
one browser at one viewport, so any difference is a difference on the page.
Screenshots of different sizes are compared on the larger canvas, where the
part only one of them covers counts as changed.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from PIL import Image, ImageChops
from pydantic import BaseModel, ValidationError

HIGHLIGHT = (220, 20, 60)


class ScreenshotDiff(BaseModel):
    a_sha256: str
    b_sha256: str
    width: int
    height: int
    changed_pixels: int
    changed_pct: float
    bbox: tuple[int, int, int, int] | None  # left, top, right, bottom (exclusive) of the changed pixels
    image: str  # the diff image's file name inside the cache folder


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _on_canvas(image: Image.Image, size: tuple[int, int]) -> Image.Image:
    if image.size == size:
        return image
    canvas = Image.new("RGB", size, (0, 0, 0))
    canvas.paste(image, (0, 0))
    return canvas


def _changed_mask(a: Image.Image, b: Image.Image) -> Image.Image:
    """White where any channel differs (or only one image covers the pixel), black elsewhere."""
    size = (max(a.width, b.width), max(a.height, b.height))
    difference = ImageChops.difference(_on_canvas(a, size), _on_canvas(b, size))
    mask = Image.new("L", size, 0)
    for channel in difference.split():  # any channel: a change of hue at one grey level is still a change
        mask = ImageChops.lighter(mask, channel.point(lambda value: 255 if value else 0))
    uncovered = Image.new("L", size, 255)
    uncovered.paste(0, (0, 0, min(a.width, b.width), min(a.height, b.height)))
    return ImageChops.lighter(mask, uncovered)


def diff_screenshots(a_path: Path, b_path: Path, cache: Path) -> ScreenshotDiff:
    """The figures and diff image of two screenshots, read from ``cache`` when this pair was compared before."""
    a_sha, b_sha = file_sha256(a_path), file_sha256(b_path)
    name = f"{a_sha[:16]}-{b_sha[:16]}"
    figures = cache / f"{name}.json"
    if figures.is_file():
        try:
            return ScreenshotDiff.model_validate_json(figures.read_text())
        except ValidationError:
            pass  # an older or torn cache entry: compare again
    with Image.open(a_path) as raw_a, Image.open(b_path) as raw_b:
        a, b = raw_a.convert("RGB"), raw_b.convert("RGB")
    mask = _changed_mask(a, b)
    changed = mask.histogram()[255]
    total = mask.width * mask.height
    background = _on_canvas(b, mask.size).convert("L").point(lambda value: 160 + value // 3).convert("RGB")
    highlighted = Image.composite(Image.new("RGB", mask.size, HIGHLIGHT), background, mask)
    cache.mkdir(parents=True, exist_ok=True)
    highlighted.save(cache / f"{name}.png", optimize=False)
    result = ScreenshotDiff(
        a_sha256=a_sha,
        b_sha256=b_sha,
        width=mask.width,
        height=mask.height,
        changed_pixels=changed,
        changed_pct=round(100 * changed / total, 4) if total else 0.0,
        bbox=mask.getbbox(),
        image=f"{name}.png",
    )
    figures.write_text(result.model_dump_json())
    return result
