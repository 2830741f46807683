"""Finding and reading evidence packages, tolerating every way they can be broken.

The report, the promotion gate and the merge all walk the same tree
(``<results>/<campaign>/<execution-id>/<attempt>/``), so they share this one
reader. A package without a readable attempt.json is still an attempt (a
crash mid-write, a copy cut short): it is returned as *broken*, with the
reason, never skipped and never a crash, because a silently missing failure
looks like a pass.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from enum import Enum
from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from harness.core import registry
from harness.core.catalog import Cell
from harness.core.records import ATTEMPT_SCHEMA_VERSION, AttemptRecord
from harness.results.assessed import ATTEMPT_FILE, AssessmentNote, as_assessed
from harness.results.review import ReviewFile, read_reviews

# Folders under a results root that hold records about campaigns, not campaigns.
RESERVED_FOLDERS = frozenset({"calibration", "promotions", "comparisons"})
BROKEN = "broken"


class PackageState(str, Enum):
    OK = "ok"
    BROKEN = "broken"
    UNKNOWN_SCHEMA = "unknown_schema"


@cache
def catalog_cells() -> dict[str, Cell]:
    return {cell.execution_id: cell for cell in registry.catalog().cells()}


class LoadedAttempt(BaseModel):
    """One package as found on disk: its record when readable, else why not."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    results: Path
    folder: Path
    campaign: str
    execution_id: str
    attempt: str
    record: AttemptRecord | None = None
    state: PackageState = PackageState.OK
    problem: str | None = None
    reviews: ReviewFile | None = None
    assessment: AssessmentNote | None = None
    duplicate: int = 1  # >1 when another results folder holds a *different* package at the same path

    @property
    def key(self) -> str:
        base = f"{self.campaign}/{self.execution_id}/{self.attempt}"
        return base if self.duplicate == 1 else f"{base}~{self.duplicate}"

    @property
    def verdict(self) -> str:
        """The verdict value, or ``broken`` when the package has no readable record."""
        return self.record.verdict.value if self.record else BROKEN

    def _part(self, index: int) -> str:
        parts = self.execution_id.split(".")
        return parts[index] if len(parts) == 4 else "unknown"

    @property
    def suite(self) -> str:
        return self.record.cell.suite if self.record else self._part(0)

    @property
    def profile(self) -> str:
        return self.record.cell.profile if self.record else self._part(1)

    @property
    def environment(self) -> str:
        return self.record.cell.environment if self.record else self._part(2)

    @property
    def case(self) -> str:
        return self.record.cell.case if self.record else self._part(3)

    @property
    def product(self) -> str:
        """The product the attempt judged (its provenance), or ``unknown`` for a package without a record."""
        return (self.record.provenance.product if self.record else None) or "unknown"

    @property
    def failed_checks(self) -> list[str]:
        return self.record.failed_check_ids() if self.record else []

    @property
    def evidence_mode(self) -> str:
        """Recorded mode; for a broken package the catalog's mode of its cell, else ``unknown``."""
        if self.record:
            return self.record.provenance.evidence_mode.value
        cell = catalog_cells().get(self.execution_id)
        return cell.evidence_mode.value if cell else "unknown"

    @property
    def started_at(self) -> datetime:
        if self.record:
            return self.record.timing.started_at
        try:
            return datetime.fromtimestamp(self.folder.stat().st_mtime, tz=UTC)
        except OSError:
            return datetime.fromtimestamp(0, tz=UTC)

    @property
    def reviewed(self) -> bool:
        return bool(self.reviews and self.reviews.notes)

    @property
    def diagnostic_reason(self) -> str | None:
        """Why this attempt stays out of the promoted matrix (it stays browsable), or None."""
        if self.execution_id not in catalog_cells():
            return "cell not in the current catalog (retired or exploratory case)"
        extra = self.record.extra if self.record else {}
        if extra.get("diagnostic"):
            marked = extra["diagnostic"]
            return f"marked diagnostic: {marked}" if isinstance(marked, str) else "marked diagnostic"
        if extra.get("scripted_persona"):
            return f"calibration run with the faulty persona {extra['scripted_persona']}"
        if extra.get("product_defect"):
            return f"calibration run with the product defect {extra['product_defect']}"
        return None


def read_package(results: Path, folder: Path, assessed: bool = True) -> LoadedAttempt:
    """Read one package; any defect becomes a broken attempt with a one-line reason.

    With ``assessed``, the checks, verdict and reason are the newest
    assessment's (``harness regrade``), and ``assessment`` names it.
    """
    campaign, execution_id, attempt = folder.relative_to(results).parts
    loaded = LoadedAttempt(
        results=results,
        folder=folder,
        campaign=campaign,
        execution_id=execution_id,
        attempt=attempt,
        reviews=read_reviews(folder),
    )
    path = folder / ATTEMPT_FILE
    if not path.is_file():
        return loaded.model_copy(update={"state": PackageState.BROKEN, "problem": "attempt.json is missing"})
    try:
        raw = json.loads(path.read_bytes())
    except (ValueError, OSError) as error:
        return loaded.model_copy(
            update={"state": PackageState.BROKEN, "problem": f"attempt.json is unreadable: {error}"}
        )
    version = raw.get("schema_version") if isinstance(raw, dict) else None
    if version != ATTEMPT_SCHEMA_VERSION:
        problem = (
            f"attempt.json has schema_version {version!r}; this harness reads version {ATTEMPT_SCHEMA_VERSION}"
            " (build the report with the harness revision that wrote it)"
        )
        return loaded.model_copy(update={"state": PackageState.UNKNOWN_SCHEMA, "problem": problem})
    try:
        record = AttemptRecord.model_validate(raw)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        problem = f"attempt.json does not match the schema: {where}: {first['msg']} ({error.error_count()} error(s))"
        return loaded.model_copy(update={"state": PackageState.BROKEN, "problem": problem})
    if not assessed:
        return loaded.model_copy(update={"record": record})
    now, note = as_assessed(folder, record)
    return loaded.model_copy(update={"record": now, "assessment": note})


def package_folders(results: Path) -> Iterable[Path]:
    """Every ``<campaign>/<execution-id>/<attempt>`` folder under a results root, sorted."""
    if not results.is_dir():
        return
    for campaign in sorted(results.iterdir()):
        if not campaign.is_dir() or campaign.name in RESERVED_FOLDERS or campaign.name.startswith("."):
            continue
        yield from campaign_package_folders(campaign)


def campaign_package_folders(campaign: Path) -> Iterable[Path]:
    """Every ``<execution-id>/<attempt>`` folder of one campaign folder, sorted."""
    if not campaign.is_dir():
        return
    for cell in sorted(child for child in campaign.iterdir() if child.is_dir()):
        yield from sorted(child for child in cell.iterdir() if child.is_dir())


def load_attempts(roots: Sequence[Path]) -> list[LoadedAttempt]:
    """All packages of several results roots (copied from several machines), oldest first.

    The same package reached through two roots (one campaign copied twice) is
    listed once; a *different* package at the same path is kept and marked as
    a second copy, so a collision is visible instead of silently resolved.
    """
    seen: dict[str, bytes | None] = {}
    loaded: list[LoadedAttempt] = []
    for root in roots:
        for folder in package_folders(root):
            attempt, fingerprint = read_package(root, folder), _fingerprint(folder)
            while attempt.key in seen and seen[attempt.key] != fingerprint:
                attempt = attempt.model_copy(update={"duplicate": attempt.duplicate + 1})
            if attempt.key in seen:
                continue  # the very same package, reached through a second root
            seen[attempt.key] = fingerprint
            loaded.append(attempt)
    return sorted(loaded, key=lambda item: (item.started_at, item.key))


def _fingerprint(folder: Path) -> bytes | None:
    try:
        return (folder / ATTEMPT_FILE).read_bytes()
    except OSError:
        return None
