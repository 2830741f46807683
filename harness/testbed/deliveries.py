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

from harness.agents.workspace import DeliveryError

MAX_DELIVERY_BYTES = 20 * 1024 * 1024


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
