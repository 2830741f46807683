"""`harness compare BASE CANDIDATE`: did the candidate campaign get better or worse than the base, cell by cell?

Pairing: attempts are paired by cell (execution id); within a cell the
i-th decisive attempt of each side (oldest first, each independent attempt
once, by the last of its automatic retries) form a pair. A pair that passed
on the base and failed on the candidate is a pass->fail transition, and the
other way round a fail->pass one. A cell's direction follows the 003 rule
(``harness.results.statistics.direction``): at least two transitions one
way and none the other.

Overall: a sign test over the cells (McNemar's exact test with the cells as
the pairs): each paired cell with more transitions one way than the other
counts as worse or better, ties drop out, and the p-value is the two-sided
exact binomial one. It assumes the cells are independent of each other and
that, were nothing different, a cell would be as likely to move one way as
the other; it says nothing about cells present on one side only.

The comparison is recorded under ``<results>/comparisons/`` with both sides'
provenance, and warns when the sides differ in more than one of them.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, Field

from harness.core.records import AttemptRecord, utc_now
from harness.results.epochs import by_cell, figures
from harness.results.packages import ATTEMPT_FILE, campaign_package_folders, read_package
from harness.results.plan import PLAN_FILE, PlanError, read_plan
from harness.results.statistics import DECISIVE, CellFigures, direction, exact_paired_p

COMPARISON_SCHEMA_VERSION = 1
COMPARISONS_FOLDER = "comparisons"
WEAK_BELOW_PAIRS = 10
DIRECTIONS = ("improved", "regressed", "unchanged", "inconclusive")
TEST_ASSUMES = (
    "the paired cells are independent of each other, and with no real difference a cell is as likely to move"
    " one way as the other; cells without transitions either way, and cells on one side only, are left out"
)
SETTINGS_COMPARED = (
    "product_defect",
    "scripted_persona",
    "replay_script",
    "cassette",
    "hard_stop_cents",
    "pace_s",
    "deadline_s",
)
"""Run settings that change what a campaign measures, recorded beside the attempts' provenance."""


class CompareError(ValueError):
    """A side that is not a campaign: one line, exit 2."""


class Side(BaseModel):
    campaign: str
    folder: str
    attempts: int
    provenance: dict[str, list[str]] = Field(
        description="what the side ran on: each provenance field and run setting -> its distinct values"
    )


class CellComparison(BaseModel):
    execution_id: str
    base: CellFigures
    candidate: CellFigures
    pairs: int = Field(description="decisive attempts paired (the i-th of each side)")
    pass_to_fail: int
    fail_to_pass: int
    direction: str = Field(description="improved, regressed (the 003 rule), unchanged (no transition), inconclusive")


class PairedTest(BaseModel):
    name: str = "exact sign test over cells (McNemar's exact test, two-sided)"
    worse: int = Field(description="paired cells with more pass->fail than fail->pass transitions")
    better: int = Field(description="paired cells with more fail->pass than pass->fail transitions")
    p_value: float
    assumes: str = TEST_ASSUMES


class Comparison(BaseModel):
    schema_version: int = COMPARISON_SCHEMA_VERSION
    compared_at: datetime = Field(default_factory=utc_now)
    base: Side
    candidate: Side
    cells: list[CellComparison]
    only_base: list[str]
    only_candidate: list[str]
    counts: dict[str, int] = Field(description="direction -> paired cells")
    test: PairedTest
    warnings: list[str]


def campaign_folder(reference: str, results: Path) -> Path:
    """A campaign folder given as a path or as an id under the results folder (raises CompareError)."""
    for folder in (Path(reference), results / reference):
        if folder.is_dir() and ((folder / PLAN_FILE).is_file() or any(folder.glob(f"*/*/{ATTEMPT_FILE}"))):
            return folder
    if Path(reference).is_dir() or (results / reference).is_dir():
        raise CompareError(f"{reference} is not a campaign folder (no {PLAN_FILE} and no attempt.json in it)")
    raise CompareError(f"no campaign {reference} (neither a folder nor a campaign under {results})")


def _records(folder: Path) -> list[AttemptRecord]:
    loaded = (read_package(folder.parent, package) for package in campaign_package_folders(folder))
    return [attempt.record for attempt in loaded if attempt.record]


def _provenance(folder: Path, records: Sequence[AttemptRecord]) -> dict[str, list[str]]:
    values: dict[str, set[str]] = {}
    for record in records:
        provenance = record.provenance.model_dump(mode="json")
        provenance["agent_clis"] = ", ".join(f"{k}={v}" for k, v in sorted(record.provenance.agent_clis.items()))
        for name, value in provenance.items():
            values.setdefault(name, set()).add(str(value))
    try:
        settings = read_plan(folder.parent, folder.name).model_dump(mode="json")
    except PlanError:
        settings = {}
    for name in SETTINGS_COMPARED:
        values[f"settings.{name}"] = {str(settings.get(name))} if settings else {"(no plan)"}
    return {name: sorted(found) for name, found in sorted(values.items())}


def _side(folder: Path, records: Sequence[AttemptRecord]) -> Side:
    return Side(
        campaign=folder.name, folder=str(folder), attempts=len(records), provenance=_provenance(folder, records)
    )


def _cell(execution_id: str, base: Sequence[AttemptRecord], candidate: Sequence[AttemptRecord]) -> CellComparison:
    def decisive(ends: Sequence[AttemptRecord]) -> list[bool]:
        return [end.verdict.is_pass for end in ends if not end.interrupted and end.verdict.value in DECISIVE]

    pairs = list(zip(decisive(base), decisive(candidate), strict=False))
    worse = sum(1 for before, after in pairs if before and not after)
    better = sum(1 for before, after in pairs if after and not before)
    return CellComparison(
        execution_id=execution_id,
        base=figures(base),
        candidate=figures(candidate),
        pairs=len(pairs),
        pass_to_fail=worse,
        fail_to_pass=better,
        direction=direction(worse, better),
    )


def _warnings(base: Side, candidate: Side, pairs: int) -> list[str]:
    warnings = []
    if pairs < WEAK_BELOW_PAIRS:
        warnings.append(f"only {pairs} paired cell(s), fewer than {WEAK_BELOW_PAIRS}: the comparison is weak")
    differ = [
        name
        for name in sorted(set(base.provenance) | set(candidate.provenance))
        if base.provenance.get(name) != candidate.provenance.get(name)
    ]
    for name in differ:
        before = ", ".join(base.provenance.get(name, [])) or "-"
        after = ", ".join(candidate.provenance.get(name, [])) or "-"
        warnings.append(f"the sides differ in {name}: {before} -> {after}")
    if len(differ) > 1:
        warnings.append(
            f"the sides differ in {len(differ)} things ({', '.join(differ)}): a change cannot be put down to one alone"
        )
    return warnings


def compare(base_reference: str, candidate_reference: str, results: Path = Path("results")) -> Comparison:
    """Pair the two campaigns by cell and judge each cell and the whole (raises CompareError)."""
    base_folder = campaign_folder(base_reference, results)
    candidate_folder = campaign_folder(candidate_reference, results)
    base_records, candidate_records = _records(base_folder), _records(candidate_folder)
    base_cells, candidate_cells = by_cell(base_records), by_cell(candidate_records)
    cells = [
        _cell(cell, base_cells[cell], candidate_cells[cell]) for cell in sorted(set(base_cells) & set(candidate_cells))
    ]
    counts = Counter(cell.direction for cell in cells)
    worse = sum(1 for cell in cells if cell.pass_to_fail > cell.fail_to_pass)
    better = sum(1 for cell in cells if cell.fail_to_pass > cell.pass_to_fail)
    base, candidate = _side(base_folder, base_records), _side(candidate_folder, candidate_records)
    return Comparison(
        base=base,
        candidate=candidate,
        cells=cells,
        only_base=sorted(set(base_cells) - set(candidate_cells)),
        only_candidate=sorted(set(candidate_cells) - set(base_cells)),
        counts={name: counts.get(name, 0) for name in DIRECTIONS},
        test=PairedTest(worse=worse, better=better, p_value=exact_paired_p(worse, better)),
        warnings=_warnings(base, candidate, len(cells)),
    )


def record_comparison(comparison: Comparison, results: Path) -> Path:
    """Keep the comparison beside the campaigns (the report shows every one kept)."""
    folder = results / COMPARISONS_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{comparison.base.campaign}--{comparison.candidate.campaign}.json"
    path.write_text(comparison.model_dump_json(indent=2) + "\n")
    return path


def read_comparisons(roots: Sequence[Path]) -> list[tuple[Path, Comparison | str]]:
    """Every comparison kept under the roots; an unreadable one as a message."""
    found: list[tuple[Path, Comparison | str]] = []
    for root in roots:
        for path in sorted((root / COMPARISONS_FOLDER).glob("*.json")):
            try:
                found.append((path, Comparison.model_validate_json(path.read_text())))
            except (ValueError, OSError) as error:
                found.append((path, f"unreadable comparison: {str(error).splitlines()[0]}"))
    return found


def _figures_text(cell_figures: CellFigures) -> str:
    if cell_figures.rate is None:
        return "no decisive"
    low, high = cell_figures.interval.low, cell_figures.interval.high
    return f"{cell_figures.tally.passes}/{cell_figures.n} {100 * cell_figures.rate:.0f}% [{100 * low:.0f}-{100 * high:.0f}]"


def table(comparison: Comparison) -> str:
    """The comparison as a person reads it in a terminal."""
    width = max([len(cell.execution_id) for cell in comparison.cells] + [4])
    lines = [
        f"base {comparison.base.campaign} ({comparison.base.attempts} attempt(s))"
        f" -> candidate {comparison.candidate.campaign} ({comparison.candidate.attempts} attempt(s))",
        f"{'cell':<{width}}  {'base':<18} {'candidate':<18} {'p->f':>4} {'f->p':>4}  direction",
    ]
    for cell in comparison.cells:
        lines.append(
            f"{cell.execution_id:<{width}}  {_figures_text(cell.base):<18} {_figures_text(cell.candidate):<18}"
            f" {cell.pass_to_fail:>4} {cell.fail_to_pass:>4}  {cell.direction}"
        )
    for side, cells in (("base", comparison.only_base), ("candidate", comparison.only_candidate)):
        lines += [f"{cell:<{width}}  only in the {side}" for cell in cells]
    counts = ", ".join(f"{n} {name}" for name, n in comparison.counts.items())
    test = comparison.test
    lines += [
        f"paired cells {len(comparison.cells)}, only in the base {len(comparison.only_base)},"
        f" only in the candidate {len(comparison.only_candidate)}",
        f"directions: {counts}",
        f"{test.name}: {test.worse} worse, {test.better} better, p = {test.p_value:.4g}",
        f"  assumes {test.assumes}",
    ]
    lines += [f"warning: {warning}" for warning in comparison.warnings]
    return "\n".join(lines)


def comparison_schema_text() -> str:
    """The published JSON Schema of ``harness compare --json``."""
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"urn:everyday-evals:comparison:v{COMPARISON_SCHEMA_VERSION}",
        **Comparison.model_json_schema(),
    }
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"
