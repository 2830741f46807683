"""Content-addressed delivery store.

A delivery is the exact ZIP bytes an agent uploaded, stored once under its
sha256. Records point at the blob and are never updated, so the same bytes
can be downloaded again at any later time.
"""

from __future__ import annotations

import hashlib
import io
import os
import zipfile
from pathlib import Path

MAX_DELIVERY_BYTES = 20 * 1024 * 1024


class DeliveryError(ValueError):
    """The upload is not a ZIP the product will keep."""


def blob_path(root: Path, sha256: str) -> Path:
    return root / "deliveries" / f"{sha256}.zip"


def store(root: Path, data: bytes) -> tuple[str, list[str]]:
    """Validate and store ``data``; returns (sha256, member names). Writes are atomic."""
    if not data:
        raise DeliveryError("delivery is empty")
    if len(data) > MAX_DELIVERY_BYTES:
        raise DeliveryError(f"delivery is larger than {MAX_DELIVERY_BYTES} bytes")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = archive.namelist()
    except zipfile.BadZipFile as error:
        raise DeliveryError(f"delivery is not a ZIP archive: {error}") from error
    digest = hashlib.sha256(data).hexdigest()
    path = blob_path(root, digest)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_bytes(data)
        os.replace(temporary, path)
    return digest, names


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
