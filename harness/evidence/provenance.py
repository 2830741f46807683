"""Where an attempt's code came from, so results can be compared and promoted honestly."""

from __future__ import annotations

import hashlib
import subprocess
from functools import cache
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[2]
DIGESTED_PACKAGES = ("harness", "stories", "oracle")


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip()


@cache
def source_revision() -> str:
    return _git("rev-parse", "HEAD") or "unknown"


def source_dirty() -> bool:
    """True when tracked files differ from the revision, or the revision is unknown."""
    status = _git("status", "--porcelain", "--untracked-files=no")
    return status is None or status != ""


@cache
def harness_digest() -> str:
    """sha256 over the harness, story and oracle sources: changes whenever grading could."""
    digest = hashlib.sha256()
    for package in DIGESTED_PACKAGES:
        for path in sorted((PROJECT_ROOT / package).rglob("*.py")):
            digest.update(str(path.relative_to(PROJECT_ROOT)).encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()
