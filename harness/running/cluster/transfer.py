"""Attempt packages between a node and the campaign folder: one tar (bytes) through Ray's object store.

A node plays its cell into a scratch results folder of its own, never into
the campaign's (a node of a real cluster has no access to it; on one
machine, a node killed mid-write would leave half a package there). What
comes home is the tar of the finished packages; it is unpacked beside the
campaign, then each package is moved into place with one rename, so a
reader (or a driver that dies mid-unpack) sees a whole package or none.
"""

from __future__ import annotations

import io
import os
import shutil
import tarfile
import tempfile
from pathlib import Path

PLACEHOLDER_PREFIX = "0-home-"
"""Empty folders standing for the packages the campaign already holds, so a node numbers its attempts on from
them (``new_attempt_id`` counts a cell's folders); never packed, never brought home."""


def lay_out_scratch(scratch_cell: Path, held: int) -> None:
    """Make the scratch cell folder, with one placeholder per package the campaign holds already."""
    scratch_cell.mkdir(parents=True, exist_ok=True)
    for number in range(held):
        (scratch_cell / f"{PLACEHOLDER_PREFIX}{number}").mkdir()


def pack(campaign_folder: Path) -> bytes:
    """Every package under ``campaign_folder`` (``<cell>/<attempt>/...``), placeholders left out, as gzip'd tar."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=1) as tar:  # screenshots and ZIPs barely shrink
        for cell in sorted(p for p in campaign_folder.iterdir() if p.is_dir()):
            for attempt in sorted(p for p in cell.iterdir() if p.is_dir()):
                if not attempt.name.startswith(PLACEHOLDER_PREFIX):
                    tar.add(attempt, arcname=f"{cell.name}/{attempt.name}")
    return buffer.getvalue()


class PackageCollision(Exception):
    """A package that came home names a folder the campaign already has: nothing is overwritten."""


def unpack_home(data: bytes, campaign_folder: Path) -> list[Path]:
    """Put every package of ``data`` into ``campaign_folder``, each whole or not at all; their new folders."""
    campaign_folder.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".arriving-", dir=campaign_folder.parent))  # skipped by every reader
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            tar.extractall(staging, filter="data")
        arrived = []
        for cell in sorted(p for p in staging.iterdir() if p.is_dir()):
            for attempt in sorted(p for p in cell.iterdir() if p.is_dir()):
                target = campaign_folder / cell.name / attempt.name
                if target.exists():
                    raise PackageCollision(f"{target} exists already; the package that came home is not moved there")
                target.parent.mkdir(exist_ok=True)
                os.rename(attempt, target)
                arrived.append(target)
        return arrived
    finally:
        shutil.rmtree(staging, ignore_errors=True)
