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

import shutil
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from urllib.parse import quote

from jinja2 import Environment
from pydantic import BaseModel

from harness.core.records import ATTEMPT_SCHEMA_VERSION, utc_now
from harness.core.schema import write_schema
from harness.evidence.thumbnails import make_thumbnails, packaged_thumbnail, thumbnail_name
from harness.results.assessed import current_checks
from harness.results.compare import Comparison, read_comparisons
from harness.results.packages import LoadedAttempt, PackageState, load_attempts, read_package
from harness.results.promotion import read_promotions
from harness.results.report import details, matrix, page_cache, search, story
from harness.results.report.findings import finding_view
from harness.results.report.judged import judged_views
from harness.results.report.site import STATIC, Site, environment, href, link_or_copy
from harness.results.report.timeline import Timeline, build_timeline
from harness.results.report.versus_page import versus_page
from harness.results.report.versus_pick import versus_pair
from harness.results.summary import VERDICT_ORDER, summarize

TIMELINE_JS = (STATIC / "timeline.js").read_text()
"""Inlined into each attempt page: a page on file:// loads it with no second request, and the package's own
index (browsed without the report) has it too."""
FILTER_DIMENSIONS = ("suite", "profile", "environment", "product", "case", "verdict", "check", "mode")
"""What the index filters rows by; each matches the row's latest attempt (its verdict, the checks it failed)."""
PACKAGE_INDEX = "index.html"
TRACE_CACHE = "cache/traces"


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
    site = Site(out, copy_evidence)
    attempts = load_attempts(results)
    (site.out / "assets").mkdir(parents=True, exist_ok=True)
    for asset in STATIC.iterdir():
        shutil.copyfile(asset, site.out / "assets" / asset.name)
    if copy_evidence:
        for attempt in attempts:
            shutil.copytree(attempt.folder, site.evidence(attempt), dirs_exist_ok=True, copy_function=link_or_copy)

    shots = {attempt.key: _screenshot_files(attempt) for attempt in attempts}
    jobs = [
        (site.evidence(attempt) / name, site.thumbs(attempt) / thumbnail_name(Path(name)))
        for attempt in attempts
        for name in shots[attempt.key]
        if (site.evidence(attempt) / name).is_file() and not packaged_thumbnail(site.evidence(attempt) / name).is_file()
    ]
    errors = make_thumbnails(jobs, workers)

    env = environment()
    generated_at = utc_now().strftime("%Y-%m-%d %H:%M UTC")
    evidence_note = "copied into this report folder" if copy_evidence else "linked from the results folder(s)"
    common = {"generated_at": generated_at, "evidence_note": evidence_note, "inline_css": ""}
    attempt_template = env.get_template("attempt.html")
    found: list[search.SearchDocument] = []
    for attempt in attempts:
        page = site.page(attempt)
        made_of = page_cache.signature(attempt, site.evidence(attempt), site.thumbs(attempt), copy_evidence)
        documents = page_cache.kept(site.out, page, made_of)
        if documents is None:
            page.parent.mkdir(parents=True, exist_ok=True)
            context = _attempt_context(attempt, site, page.parent, shots[attempt.key], errors, site.out / TRACE_CACHE)
            root = href(site.out, page.parent) + "/"
            page.write_text(attempt_template.render(**common, **context, root=root, standalone=False))
            timeline = context["timeline"]
            documents = (
                search.documents(attempt.key, href(page, site.out), timeline) if isinstance(timeline, Timeline) else []
            )
            page_cache.keep(site.out, page, made_of, documents)
        found += documents
    (site.out / "search.html").write_text(
        env.get_template("search.html").render(
            **common,
            root="",
            docs=[doc | {"id": number} for number, doc in enumerate(found)],
            count=len(found),
            attempts=len(attempts),
        )
    )

    main_rows, diag_rows = matrix.rows(attempts)
    index = site.out / "index.html"
    pages = {a.key: href(site.page(a), site.out) for a in attempts}
    thumbs = {}
    for attempt in attempts:
        names = [name for name in shots[attempt.key] if site.thumb(attempt, name).is_file()]
        if names:
            thumbs[attempt.key] = href(site.thumb(attempt, names[-1]), site.out)
    summary = summarize(attempts)
    comparisons = _comparison_pages(env, site, results, common, attempts)
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
    site = Site(folder, copy_evidence=False)
    context = _attempt_context(attempt, site, site.out, _screenshot_files(attempt), {})
    page = folder / PACKAGE_INDEX
    page.write_text(
        environment()
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
    env: Environment, site: Site, results: Sequence[Path], common: dict[str, str], attempts: Sequence[LoadedAttempt]
) -> list[tuple[Path, Comparison | str, str]]:
    """A page per comparison kept under the results folders: (path, comparison or why unreadable, page link).

    Each cell that changed between the sides links to an attempt-against-attempt page of one attempt from each.
    """
    out = site.out
    listed: list[tuple[Path, Comparison | str, str]] = []
    template = env.get_template("comparison.html")
    for path, comparison in read_comparisons(results):
        page = out / "comparisons" / f"{path.stem}.html"
        if isinstance(comparison, Comparison):
            page.parent.mkdir(parents=True, exist_ok=True)
            links = {}
            for cell in comparison.cells:
                if (pair := versus_pair(attempts, comparison, cell)) is not None:
                    key = f"{cell.execution_id} {cell.candidate_campaign}"
                    links[key] = href(versus_page(env, site, *pair, common), page.parent)
            page.write_text(template.render(**common, c=comparison, root="../", versus=links))
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
    attempt: LoadedAttempt,
    site: Site,
    page_dir: Path,
    screenshot_names: list[str],
    errors: dict[Path, str],
    trace_cache: Path | None = None,
) -> dict[str, object]:
    """What the attempt page renders; ``trace_cache``: where the report keeps trace summaries (None for a package's
    own index, which must write nothing into its package but the page)."""
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
    current = current_checks(attempt.folder, record) if record else None
    checks = current.checks if current else []
    failed = [check for check in checks if check.failed]

    def images(name: str) -> tuple[str, str | None]:
        thumb = site.thumb(attempt, name)
        return ev(name), href(thumb, page_dir) if thumb.is_file() else None

    timeline = build_timeline(attempt.folder, record, images, trace_cache) if record else None
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
        "finding": finding_view(record),
        "checks": checks,
        "checks_source": current.source if current else "attempt.json",
        "timeline": timeline,
        "timeline_js": TIMELINE_JS,
        "why_events": {row.event.check_id: row.n for row in timeline.why} if timeline else {},
        "shots": screenshots,
        "zips": [details.zip_view(evidence, download) for download in record.downloads] if record else [],
        "snapshots": details.snapshot_views(evidence),
        "judged": judged_views(attempt.case, attempt.folder),
        "files": files,
        "trace": {"href": ev("trace.zip"), "command": f".venv/bin/playwright show-trace {trace_path}"}
        if trace.is_file()
        else None,
    }
