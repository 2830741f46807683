"""Review notes: a person's written judgement of one attempt, kept beside its evidence.

A failed or broken attempt is not promotable until someone has looked at it
and said what it means (a product bug, a flaky machine, an accepted risk).
The note lives in the package (``review.json`` next to ``attempt.json``) so it
travels with the evidence when results are copied or merged.
"""

from __future__ import annotations

import getpass
import json
import os
import subprocess
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from harness.core.catalog import EXECUTION_ID
from harness.core.records import utc_now

REVIEW_FILE = "review.json"
REVIEW_SCHEMA_VERSION = 1


class ReviewNote(BaseModel):
    reviewer: str
    at: datetime = Field(default_factory=utc_now)
    note: str = Field(min_length=1)
    verdict_seen: str | None = Field(None, description="the attempt's verdict when the note was written")


class ReviewFile(BaseModel):
    """All notes of one attempt, oldest first; a later note never erases an earlier one."""

    schema_version: int = REVIEW_SCHEMA_VERSION
    notes: list[ReviewNote] = Field(default_factory=list)


class ReviewError(ValueError):
    """The review cannot be written; the message says why in one line."""


def default_reviewer() -> str:
    """git's user.name when set (who reviews is who commits), else the login name."""
    try:
        name = subprocess.run(
            ["git", "config", "user.name"], capture_output=True, text=True, timeout=5, check=False
        ).stdout.strip()
    except OSError:
        name = ""
    return name or os.environ.get("USER") or getpass.getuser()


def read_reviews(package: Path) -> ReviewFile | None:
    """The package's review notes; None when there are none or the file is unreadable."""
    path = package / REVIEW_FILE
    if not path.is_file():
        return None
    try:
        return ReviewFile.model_validate_json(path.read_text())
    except (ValidationError, ValueError, OSError):
        return None


def is_attempt_folder(folder: Path) -> bool:
    """An attempt package: it has its record, or (broken) it sits in a cell folder named by an execution id."""
    if not folder.is_dir():
        return False
    return (folder / "attempt.json").is_file() or EXECUTION_ID.fullmatch(folder.parent.name) is not None


def write_review(package: Path, note: str, reviewer: str | None = None) -> Path:
    """Append a note to ``review.json`` of the package folder (or of the folder holding ATTEMPT.json)."""
    package = package.parent if package.name == "attempt.json" else package
    if not is_attempt_folder(package):
        raise ReviewError(f"{package} is not an attempt folder (results/<campaign>/<execution-id>/<attempt>)")
    if not note.strip():
        raise ReviewError("the review note is empty")
    verdict = None
    attempt = package / "attempt.json"
    if attempt.is_file():
        try:
            verdict = json.loads(attempt.read_text()).get("verdict")
        except (ValueError, OSError):
            verdict = "broken"
    else:
        verdict = "broken"
    reviews = read_reviews(package) or ReviewFile()
    reviews.notes.append(ReviewNote(reviewer=reviewer or default_reviewer(), note=note.strip(), verdict_seen=verdict))
    path = package / REVIEW_FILE
    path.write_text(reviews.model_dump_json(indent=2) + "\n")
    return path
