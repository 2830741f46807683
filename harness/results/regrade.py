"""``harness regrade RESULTS...``: every package under the given folders judged again by the current rules."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from pydantic import BaseModel

from harness.core.catalog import Cell
from harness.judging.keeping import Unobservable
from harness.judging.regrade import Assessment, RegradeError, assess, write_assessment
from harness.results.packages import ATTEMPT_FILE, catalog_cells, read_package


class Regraded(BaseModel):
    """One package's regrade: where its new assessment went, or why it could not be judged again."""

    package: Path
    written: Path | None = None
    assessment: Assessment | None = None
    problem: str | None = None


def packages_under(paths: Sequence[Path]) -> list[Path]:
    """Every package folder (one holding attempt.json) under ``paths``, each a results root, a campaign, a cell or a
    package; a path that holds none is an error."""
    found: list[Path] = []
    for path in paths:
        if not path.exists():
            raise RegradeError(f"{path}: no such folder")
        if not path.is_dir():
            raise RegradeError(f"{path}: not a folder")
        here = sorted(
            {attempt.parent for attempt in path.rglob(ATTEMPT_FILE)}
            | ({path} if (path / ATTEMPT_FILE).is_file() else set())
        )
        if not here:
            raise RegradeError(f"{path}: holds no attempt (no {ATTEMPT_FILE} below it)")
        found += here
    return sorted(set(found))


def _unobservable(execution_id: str) -> Unobservable:
    cell: Cell | None = catalog_cells().get(execution_id)
    return cell.unobservable if cell is not None else (lambda check_id: None)


def regrade(paths: Sequence[Path]) -> list[Regraded]:
    """Judge every package under ``paths`` again and write each new assessment beside it."""
    done: list[Regraded] = []
    for folder in packages_under(paths):
        loaded = read_package(folder.parents[2], folder, assessed=False)
        if loaded.record is None:
            done.append(Regraded(package=folder, problem=loaded.problem or "no readable attempt.json"))
            continue
        try:
            assessment = assess(folder, loaded.record, _unobservable(loaded.execution_id))
        except RegradeError as error:
            done.append(Regraded(package=folder, problem=str(error)))
            continue
        done.append(Regraded(package=folder, written=write_assessment(folder, assessment), assessment=assessment))
    return done


def describe(done: Iterable[Regraded]) -> list[str]:
    """One line per package, then the totals: what the terminal prints."""
    lines: list[str] = []
    counts = {"unchanged": 0, "changed": 0, "not regraded": 0}
    for item in done:
        if item.assessment is None:
            counts["not regraded"] += 1
            lines.append(f"not regraded  {item.package}: {item.problem}")
            continue
        a = item.assessment
        if not a.changed and a.verdict is a.verdict_before:
            counts["unchanged"] += 1
            lines.append(f"unchanged     {item.package} ({a.verdict.value})")
            continue
        counts["changed"] += 1
        checks = ", ".join(sorted({c.id for c in a.changed})) or "none"
        lines.append(f"changed       {item.package}: {a.verdict_before.value} -> {a.verdict.value}; checks: {checks}")
        if a.no_evidence:
            lines.append(f"              no evidence for: {', '.join(a.no_evidence)}")
    lines.append("regraded: " + ", ".join(f"{n} {what}" for what, n in counts.items()))
    return lines
