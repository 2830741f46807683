"""An agent's workspace as a delivery: which files count, and the reproducible ZIP made of them.

Every agent-side program that delivers (the scripted agent, a product's tool
server beside a CLI) and every product that zips a workspace for its agent
uses these, so "the same files" means the same bytes and the same sha256
wherever the ZIP was made.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path


class DeliveryError(ValueError):
    """The files asked for (or an upload) are not a delivery: the message names what is wrong."""


def visible(relative: Path) -> bool:
    """Hidden files and caches are never part of a delivery."""
    return not any(part.startswith(".") or part == "__pycache__" for part in relative.parts)


def zip_workspace(workspace: Path, names: list[str] | None = None) -> bytes:
    """A reproducible ZIP of the visible workspace files (or only ``names``): same files, same bytes, same sha256.

    A named file must be a visible file inside the workspace; anything else is
    a :class:`DeliveryError` naming it, never a silently smaller ZIP.
    """
    root = workspace.resolve()
    if names is None:
        paths = sorted(p for p in root.rglob("*") if p.is_file() and visible(p.relative_to(root)))
    else:
        paths = []
        for name in names:
            path = (root / name).resolve()
            if not path.is_relative_to(root) or not path.is_file() or not visible(path.relative_to(root)):
                raise DeliveryError(f"{name!r} is not a file in the workspace")
            paths.append(path)
        paths = sorted(set(paths))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in paths:
            info = zipfile.ZipInfo(path.relative_to(root).as_posix(), date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, path.read_bytes())
    return buffer.getvalue()
