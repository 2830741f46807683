"""Where one report build puts things: each attempt's page, evidence and thumbnails, and the one Jinja environment.

Shared by the report's pages (the index and attempts, comparisons, attempt
against attempt), so every page links the same way: relatively, which works
from file:// as over HTTP.
"""

from __future__ import annotations

import functools
import os
import shutil
from pathlib import Path
from urllib.parse import quote

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from harness.evidence.thumbnails import packaged_thumbnail, thumbnail_name
from harness.results.packages import LoadedAttempt
from harness.results.report.timeline_html import rows_html

STATIC = Path(__file__).with_name("static")


def href(target: Path, page_dir: Path) -> str:
    """A relative, URL-quoted link from a page's folder to a file: works from file:// and over HTTP."""
    return quote(os.path.relpath(target, page_dir).replace(os.sep, "/"))


@functools.cache
def environment() -> Environment:
    """One per process: an environment compiles each template once, and a cell worker writes a package per cell."""
    env = Environment(
        loader=PackageLoader("harness.results.report", "templates"),
        autoescape=select_autoescape(["html"]),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["pct"] = lambda value: f"{100 * value:.0f}%"
    env.globals["rows_html"] = rows_html
    return env


def link_or_copy(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


class Site:
    """Paths of one build: where each attempt's page, evidence and thumbnails go."""

    def __init__(self, out: Path, copy_evidence: bool) -> None:
        self.out = out.resolve()
        self.copy_evidence = copy_evidence
        self._resolved: dict[str, Path] = {}  # resolving is a syscall per path part: once per package

    def page(self, attempt: LoadedAttempt) -> Path:
        return (
            self.out / "attempts" / attempt.campaign / attempt.execution_id / f"{attempt.attempt}{suffix(attempt)}.html"
        )

    def evidence(self, attempt: LoadedAttempt) -> Path:
        if not self.copy_evidence:
            return self._resolved.setdefault(attempt.key, attempt.folder.resolve())
        return self.out / "evidence" / attempt.campaign / attempt.execution_id / f"{attempt.attempt}{suffix(attempt)}"

    def thumbs(self, attempt: LoadedAttempt) -> Path:
        return self.out / "thumbs" / attempt.campaign / attempt.execution_id / f"{attempt.attempt}{suffix(attempt)}"

    def thumb(self, attempt: LoadedAttempt, name: str) -> Path:
        """The package's own thumbnail when the harness made one, else the report's cached one."""
        packaged = packaged_thumbnail(self.evidence(attempt) / name)
        return packaged if packaged.is_file() else self.thumbs(attempt) / thumbnail_name(Path(name))


def suffix(attempt: LoadedAttempt) -> str:
    return "" if attempt.duplicate == 1 else f"~{attempt.duplicate}"
