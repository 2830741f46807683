"""`harness report`: a static site over every attempt of one or more results folders.

Where the evidence lives: by default the pages link *relatively* into the
results folders (nothing is copied, so a report over 1,000 attempts is quick
and small); keep the report folder where it was built relative to results/
(the default ``report/`` beside ``results/`` works from file://). With
``copy_evidence`` every package is copied (hard-linked when possible) into
``<out>/evidence/`` and the site is self-contained: zip it, archive it as a
CI artifact, open it anywhere.
"""

from __future__ import annotations

import functools
import os
import shutil
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from urllib.parse import quote

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from pydantic import BaseModel

from harness.core.records import ATTEMPT_SCHEMA_VERSION, utc_now
from harness.core.schema import write_schema
from harness.evidence.thumbnails import make_thumbnails, packaged_thumbnail, thumbnail_name
from harness.results.compare import Comparison, read_comparisons
from harness.results.packages import LoadedAttempt, PackageState, load_attempts, read_package
from harness.results.promotion import read_promotions
from harness.results.report import details, matrix, story
from harness.results.report.judged import judged_views
from harness.results.summary import VERDICT_ORDER, summarize

STATIC = Path(__file__).with_name("static")
FILTER_DIMENSIONS = ("suite", "profile", "environment", "product", "case", "verdict", "check", "mode")
"""What the index filters rows by; each matches the row's latest attempt (its verdict, the checks it failed)."""
PACKAGE_INDEX = "index.html"


class BuildResult(BaseModel):
    out: Path
    index: Path
    attempts: int
    broken: int
    seconds: float
    thumbnail_errors: dict[str, str]


class Screenshot(BaseModel):
    name: str
    full: str
    thumb: str | None
    error: str | None = None


def href(target: Path, page_dir: Path) -> str:
    """A relative, URL-quoted link from a page's folder to a file: works from file:// and over HTTP."""
    return quote(os.path.relpath(target, page_dir).replace(os.sep, "/"))


@functools.cache
def _environment() -> Environment:
    """One per process: an environment compiles each template once, and a cell worker writes a package per cell."""
    env = Environment(
        loader=PackageLoader("harness.results.report", "templates"),
        autoescape=select_autoescape(["html"]),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["pct"] = lambda value: f"{100 * value:.0f}%"
    return env


def _link_or_copy(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


class _Site:
    """Paths of one build: where each attempt's page, evidence and thumbnails go."""

    def __init__(self, out: Path, copy_evidence: bool) -> None:
        self.out = out.resolve()
        self.copy_evidence = copy_evidence
        self._resolved: dict[str, Path] = {}  # resolving is a syscall per path part: once per package

    def page(self, attempt: LoadedAttempt) -> Path:
        return (
            self.out
            / "attempts"
            / attempt.campaign
            / attempt.execution_id
            / f"{attempt.attempt}{_suffix(attempt)}.html"
        )

    def evidence(self, attempt: LoadedAttempt) -> Path:
        if not self.copy_evidence:
            return self._resolved.setdefault(attempt.key, attempt.folder.resolve())
        return self.out / "evidence" / attempt.campaign / attempt.execution_id / f"{attempt.attempt}{_suffix(attempt)}"

    def thumbs(self, attempt: LoadedAttempt) -> Path:
        return self.out / "thumbs" / attempt.campaign / attempt.execution_id / f"{attempt.attempt}{_suffix(attempt)}"

    def thumb(self, attempt: LoadedAttempt, name: str) -> Path:
        """The package's own thumbnail when the harness made one, else the report's cached one."""
        packaged = packaged_thumbnail(self.evidence(attempt) / name)
        return packaged if packaged.is_file() else self.thumbs(attempt) / thumbnail_name(Path(name))


def _suffix(attempt: LoadedAttempt) -> str:
    return "" if attempt.duplicate == 1 else f"~{attempt.duplicate}"


def _screenshot_files(attempt: LoadedAttempt) -> list[str]:
    """Recorded screenshots first, then any other PNG the folder holds (a broken package has no list)."""
    recorded = list(attempt.record.screenshots) if attempt.record else []
    folder = attempt.folder / "screenshots"
    on_disk = sorted(f"screenshots/{p.name}" for p in folder.glob("*.png")) if folder.is_dir() else []
    return recorded + [name for name in on_disk if name not in recorded]


def build_report(
    results: Sequence[Path] = (Path("results"),),
    out: Path = Path("report"),
    copy_evidence: bool = False,
    workers: int | None = None,
) -> BuildResult:
    """Build the site into OUT from every attempt under the RESULTS folders; returns what was built."""
    started = time.perf_counter()
    site = _Site(out, copy_evidence)
    attempts = load_attempts(results)
    (site.out / "assets").mkdir(parents=True, exist_ok=True)
    for asset in STATIC.iterdir():
        shutil.copyfile(asset, site.out / "assets" / asset.name)
    if copy_evidence:
        for attempt in attempts:
            shutil.copytree(attempt.folder, site.evidence(attempt), dirs_exist_ok=True, copy_function=_link_or_copy)

    shots = {attempt.key: _screenshot_files(attempt) for attempt in attempts}
    jobs = [
        (site.evidence(attempt) / name, site.thumbs(attempt) / thumbnail_name(Path(name)))
        for attempt in attempts
        for name in shots[attempt.key]
        if (site.evidence(attempt) / name).is_file() and not packaged_thumbnail(site.evidence(attempt) / name).is_file()
    ]
    errors = make_thumbnails(jobs, workers)

    env = _environment()
    generated_at = utc_now().strftime("%Y-%m-%d %H:%M UTC")
    evidence_note = "copied into this report folder" if copy_evidence else "linked from the results folder(s)"
    common = {"generated_at": generated_at, "evidence_note": evidence_note, "inline_css": ""}
    attempt_template = env.get_template("attempt.html")
    for attempt in attempts:
        page = site.page(attempt)
        page.parent.mkdir(parents=True, exist_ok=True)
        context = _attempt_context(attempt, site, page.parent, shots[attempt.key], errors)
        root = href(site.out, page.parent) + "/"
        page.write_text(attempt_template.render(**common, **context, root=root, standalone=False))

    main_rows, diag_rows = matrix.rows(attempts)
    index = site.out / "index.html"
    pages = {a.key: href(site.page(a), site.out) for a in attempts}
    thumbs = {}
    for attempt in attempts:
        names = [name for name in shots[attempt.key] if site.thumb(attempt, name).is_file()]
        if names:
            thumbs[attempt.key] = href(site.thumb(attempt, names[-1]), site.out)
    summary = summarize(attempts)
    comparisons = _comparison_pages(env, site.out, results, common)
    index.write_text(
        env.get_template("index.html").render(
            **common,
            root="",
            attempts=attempts,
            summary=summary,
            schema_version=ATTEMPT_SCHEMA_VERSION,
            roots=[str(r) for r in results],
            counts=matrix.mode_counts(main_rows),
            verdicts=VERDICT_ORDER,
            filters=_filters(attempts),
            main_rows=main_rows,
            diag_rows=diag_rows,
            pages=pages,
            thumbs=thumbs,
            problems=[a for a in attempts if a.state is not PackageState.OK],
            duplicates=[a for a in attempts if a.duplicate > 1],
            promotions=read_promotions(results),
            comparisons=comparisons,
        )
    )
    (site.out / "summary.json").write_text(summary.model_dump_json(indent=2) + "\n")
    write_schema(site.out / "schema" / "attempt.schema.json")
    return BuildResult(
        out=site.out,
        index=index,
        attempts=len(attempts),
        broken=sum(1 for a in attempts if a.state is not PackageState.OK),
        seconds=round(time.perf_counter() - started, 3),
        thumbnail_errors={str(path): error for path, error in errors.items()},
    )


def write_package_index(folder: Path) -> Path:
    """The package's own ``PACKAGE_INDEX``: its attempt page with every link inside the folder and the stylesheet
    inline, so a reviewer handed only the folder browses it like the report (no JSON to read)."""
    attempt = read_package(folder.parents[2], folder)
    site = _Site(folder, copy_evidence=False)
    context = _attempt_context(attempt, site, site.out, _screenshot_files(attempt), {})
    page = folder / PACKAGE_INDEX
    page.write_text(
        _environment()
        .get_template("attempt.html")
        .render(
            **context,
            generated_at=utc_now().strftime("%Y-%m-%d %H:%M UTC"),
            evidence_note="in this folder",
            inline_css=(STATIC / "report.css").read_text(),
            root="",
            standalone=True,
        )
    )
    return page


def _comparison_pages(
    env: Environment, out: Path, results: Sequence[Path], common: dict[str, str]
) -> list[tuple[Path, Comparison | str, str]]:
    """A page per comparison kept under the results folders: (path, comparison or why unreadable, page link)."""
    listed: list[tuple[Path, Comparison | str, str]] = []
    template = env.get_template("comparison.html")
    for path, comparison in read_comparisons(results):
        page = out / "comparisons" / f"{path.stem}.html"
        if isinstance(comparison, Comparison):
            page.parent.mkdir(parents=True, exist_ok=True)
            page.write_text(template.render(**common, c=comparison, root="../"))
        listed.append((path, comparison, href(page, out)))
    return listed


def _filters(attempts: Sequence[LoadedAttempt]) -> list[tuple[str, list[str]]]:
    getters: dict[str, Callable[[LoadedAttempt], list[str]]] = {
        "suite": lambda a: [a.suite],
        "profile": lambda a: [a.profile],
        "environment": lambda a: [a.environment],
        "product": lambda a: [a.product],
        "case": lambda a: [a.case],
        "verdict": lambda a: [a.verdict],
        "check": lambda a: a.failed_checks,
        "mode": lambda a: [a.evidence_mode],
    }
    return [(name, sorted({value for a in attempts for value in getters[name](a)})) for name in FILTER_DIMENSIONS]


def _attempt_context(
    attempt: LoadedAttempt, site: _Site, page_dir: Path, screenshot_names: list[str], errors: dict[Path, str]
) -> dict[str, object]:
    evidence = site.evidence(attempt)
    base = href(evidence, page_dir)

    def ev(relative: str) -> str:
        return f"{base}/{quote(relative)}"

    screenshots = []
    for name in screenshot_names:
        source, thumb = evidence / name, site.thumb(attempt, name)
        error = errors.get(source) or (None if source.is_file() else "missing from the package")
        screenshots.append(
            Screenshot(name=name, full=ev(name), thumb=href(thumb, page_dir) if thumb.is_file() else None, error=error)
        )
    record = attempt.record
    failed = [check for check in record.checks if check.failed] if record else []
    trace = evidence / "trace.zip"
    trace_path = attempt.folder / "trace.zip" if not site.copy_evidence else trace
    files = {entry.path: entry for entry in details.package_files(evidence)}
    return {
        "a": attempt,
        "r": record,
        "ev": ev,
        "package_path": str(attempt.folder),
        "story": story.sentence(record) if record else "",
        "journey": story.journey(record, ev) if record else [],
        "failed": failed,
        "shots": screenshots,
        "zips": [details.zip_view(evidence, download) for download in record.downloads] if record else [],
        "snapshots": details.snapshot_views(evidence),
        "judged": judged_views(attempt.case, attempt.folder),
        "files": files,
        "trace": {"href": ev("trace.zip"), "command": f".venv/bin/playwright show-trace {trace_path}"}
        if trace.is_file()
        else None,
    }
