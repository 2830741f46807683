"""Attempt pages a warm build keeps: a page is rendered again only when something it is made of changed.

An attempt page is a function of its package's files, the report's own code
and templates, and where the site links its evidence. A package is final
once its attempt ends (a review or a regrade adds a file, which changes the
signature), so rebuilding the report after a campaign renders only the new
attempts' pages; each kept page still says when it was generated. The search
documents of a page are kept with it, so the campaign's search covers every
attempt without reading the packages again.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from pydantic import BaseModel, ValidationError

from harness.results.packages import LoadedAttempt
from harness.results.report.search import SearchDocument

CACHE = "cache/pages"
REPORT_CODE = Path(__file__).parent


class PageEntry(BaseModel):
    signature: str
    documents: list[SearchDocument]


@functools.cache
def report_code_digest() -> str:
    """The report's modules, templates and assets: a new harness revision renders every page again."""
    digest = hashlib.sha256()
    for path in sorted(REPORT_CODE.rglob("*")):
        if path.is_file() and path.suffix in {".py", ".html", ".css", ".js"}:
            digest.update(path.relative_to(REPORT_CODE).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _listing(root: Path) -> list[str]:
    if not root.is_dir():
        return []
    return [
        f"{path.relative_to(root)}:{stat.st_size}:{stat.st_mtime_ns}"
        for path in sorted(root.rglob("*"))
        if path.is_file() and (stat := path.stat())
    ]


def signature(attempt: LoadedAttempt, evidence: Path, thumbs: Path, copy_evidence: bool) -> str:
    """What the attempt's page is made of: its package's files, the report's thumbnails of it, how evidence is
    linked, what the package's record says about the cell (a diagnostics attempt), and the report's code."""
    parts = [
        report_code_digest(),
        attempt.key,
        str(evidence),
        str(copy_evidence),
        str(attempt.diagnostic_reason),
        *_listing(attempt.folder),
        "thumbs",
        *_listing(thumbs),
    ]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def entry_path(out: Path, page: Path) -> Path:
    return out / CACHE / f"{hashlib.sha256(str(page).encode()).hexdigest()[:32]}.json"


def kept(out: Path, page: Path, wanted: str) -> list[SearchDocument] | None:
    """The page's search documents when the page on disk was rendered from exactly ``wanted``; else None."""
    if not page.is_file():
        return None
    try:
        entry = PageEntry.model_validate_json(entry_path(out, page).read_bytes())
    except (OSError, ValidationError):
        return None
    return entry.documents if entry.signature == wanted else None


def keep(out: Path, page: Path, made_of: str, documents: list[SearchDocument]) -> None:
    path = entry_path(out, page)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(PageEntry(signature=made_of, documents=documents).model_dump_json())
