"""The attempt-against-attempt page of two packages: written into a report folder, its screenshot diffs cached there."""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Mapping
from pathlib import Path

from jinja2 import Environment

from harness.core.records import utc_now
from harness.results.packages import LoadedAttempt, read_package
from harness.results.report.site import STATIC, Site, environment, href
from harness.results.report.versus import versus


def versus_page(env: Environment, site: Site, a: LoadedAttempt, b: LoadedAttempt, common: Mapping[str, str]) -> Path:
    """Write the attempt-against-attempt page of A and B (its screenshot diffs cached in the site by hashes)."""
    assert a.record is not None and b.record is not None
    name = hashlib.sha256(f"{a.key}\n{b.key}".encode()).hexdigest()[:16]
    page = site.out / "versus" / f"{name}.html"
    page.parent.mkdir(parents=True, exist_ok=True)
    cache = site.out / "diffs"
    compared = versus(site.evidence(a), a.record, site.evidence(b), b.record, cache)
    shots = [
        (
            href(site.evidence(a) / p.a, page.parent),
            href(site.evidence(b) / p.b, page.parent),
            href(cache / p.diff.image, page.parent),
        )
        for p in compared.screenshots
    ]
    pages = {side.key: site.page(side) for side in (a, b)}
    page.write_text(
        env.get_template("versus.html").render(
            **common,
            root="../",
            a=a,
            b=b,
            v=compared,
            shots=shots,
            a_page=href(pages[a.key], page.parent) if pages[a.key].is_file() else None,
            b_page=href(pages[b.key], page.parent) if pages[b.key].is_file() else None,
        )
    )
    return page


def build_versus(a_folder: Path, b_folder: Path, out: Path = Path("report")) -> Path:
    """The attempt-against-attempt page of any two packages (two attempts of a cell, or one cell in two
    campaigns), written into the report folder OUT; returns the page."""
    a, b = (read_package(folder.parents[2], folder) for folder in (a_folder, b_folder))
    for side in (a, b):
        if side.record is None:
            raise ValueError(f"{side.folder} has no readable attempt.json: {side.problem}")
    site = Site(out, copy_evidence=False)
    (site.out / "assets").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(STATIC / "report.css", site.out / "assets" / "report.css")
    common = {
        "generated_at": utc_now().strftime("%Y-%m-%d %H:%M UTC"),
        "evidence_note": "linked from the results folder(s)",
        "inline_css": "",
    }
    return versus_page(environment(), site, a, b, common)
