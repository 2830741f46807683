"""`harness compare`: did the candidate get better or worse than the base, cell by cell, by a test that fits the design?

Two designs, never mixed:

- *Independent campaigns* (``harness compare BASE CANDIDATE [MORE ...]``):
  campaigns run at different times share no pairs, so each cell's attempts
  are two independent samples. Every attempt is counted (unequal n kept) and
  the cell gets Fisher's exact two-sided test; each further campaign is
  tested against the first.
- *A paired campaign* (``harness compare CAMPAIGN``, run with ``--pair``):
  each slot was played once per variant with the same inputs, and only the
  pairs recorded on the attempts enter: their transitions, McNemar's exact
  p, and seed 003's rule (two transitions one way, none the other).

Either way the cells' p-values are adjusted with Holm's method across every
test made, and a cell is ``regressed`` or ``improved`` only when its
adjusted p is below alpha (for pairs: and the rule holds). The result
depends only on the attempts' verdicts and pair ids, never on folder names,
start times or the order they are listed in. The comparison is recorded
under ``<results>/comparisons/`` with each side's provenance, and warns when
the sides differ in more than one of them.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from fractions import Fraction
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from harness.core.records import utc_now
from harness.results.compare_sides import (
    CompareError,
    Side,
    campaign_folder,
    load_campaign,
    paired_variants,
    side_of,
)
from harness.results.counting import SideCounts, side_counts
from harness.results.paired import PairCounts, pair_counts
from harness.results.significance import attempts_for_power, fisher_exact, holm, mcnemar_exact

COMPARISON_SCHEMA_VERSION = 2
COMPARISONS_FOLDER = "comparisons"
DEFAULT_ALPHA = 0.05
WEAK_BELOW_CELLS = 10
REGRESSED, IMPROVED, NO_DIFFERENCE, ONE_SIDE = "regressed", "improved", "no difference detected", "only on one side"
DIRECTIONS = (REGRESSED, IMPROVED, NO_DIFFERENCE, ONE_SIDE)
FISHER = "Fisher's exact test, two-sided"
MCNEMAR = "McNemar's exact test, two-sided (binomial on the discordant pairs)"
POWER_NOTE = (
    "approximate attempts per side to detect the observed difference with 80 % power at alpha divided by the number"
    " of tests (Holm's strictest step), by the normal approximation with Fleiss' continuity correction: an"
    " approximation, not an exact power computation"
)


class CellComparison(BaseModel):
    execution_id: str
    candidate_campaign: str = Field(description="the side tested against the base (a matrix has several)")
    base: SideCounts | None = Field(description="None: the cell is not on the base side")
    candidate: SideCounts | None = Field(description="None: the cell is not on the candidate side")
    pairs: PairCounts | None = Field(None, description="a paired campaign's recorded pairs of this cell")
    test: str | None = Field(description="the test computed (None when the cell is on one side only)")
    p_value: float | None = Field(description="the test's p-value")
    p_exact: str | None = Field(description="the same p-value as an exact fraction")
    p_adjusted: float | None = Field(description="Holm-adjusted across every test of this comparison")
    direction: str = Field(description="regressed, improved, no difference detected, only on one side")
    approx_attempts_per_side: int | None = Field(
        None,
        description="independent samples where no difference was detected but the rates differ: " + POWER_NOTE,
    )


class Comparison(BaseModel):
    schema_version: int = COMPARISON_SCHEMA_VERSION
    compared_at: datetime = Field(default_factory=utc_now)
    design: Literal["independent", "paired"]
    alpha: float
    correction: str = "Holm across every test of the comparison"
    base: Side
    candidates: list[Side] = Field(description="each tested against the base, in the order named")
    cells: list[CellComparison] = Field(description="per cell (sorted) and per candidate (in order)")
    counts: dict[str, int] = Field(description="direction -> cell comparisons")
    warnings: list[str]

    def provenance_rows(self) -> list[tuple[str, list[str], bool]]:
        """Each provenance name, its values on each side (base first), and whether the sides differ in it."""
        sides = [self.base, *self.candidates]
        names = sorted({name for side in sides for name in side.provenance})
        rows = [(name, [", ".join(side.provenance.get(name, [])) for side in sides]) for name in names]
        return [(name, values, len(set(values)) > 1) for name, values in rows]


def _independent(execution_id: str, candidate: str, base: SideCounts | None, cand: SideCounts | None) -> CellComparison:
    if base is None or cand is None:
        return CellComparison(
            execution_id=execution_id,
            candidate_campaign=candidate,
            base=base,
            candidate=cand,
            test=None,
            p_value=None,
            p_exact=None,
            p_adjusted=None,
            direction=ONE_SIDE,
        )
    p = fisher_exact(base.passed, base.n, cand.passed, cand.n)
    return CellComparison(
        execution_id=execution_id,
        candidate_campaign=candidate,
        base=base,
        candidate=cand,
        test=FISHER,
        p_value=float(p),
        p_exact=str(p),
        p_adjusted=None,
        direction=NO_DIFFERENCE,
    )


def _direction(cell: CellComparison, p_adjusted: Fraction, alpha: float) -> str:
    """Regressed or improved only below alpha; pairs also need seed 003's rule, and point the way their
    transitions do (never the pooled rates, which hold attempts whose partner was excluded)."""
    if p_adjusted >= Fraction(str(alpha)) or cell.base is None or cell.candidate is None:
        return NO_DIFFERENCE
    if cell.pairs is not None:
        if not cell.pairs.rule_holds:
            return NO_DIFFERENCE
        return REGRESSED if cell.pairs.pass_to_fail > cell.pairs.fail_to_pass else IMPROVED
    if cell.base.rate is None or cell.candidate.rate is None:
        return NO_DIFFERENCE
    return REGRESSED if cell.candidate.rate < cell.base.rate else IMPROVED


def _decide(cells: list[CellComparison], alpha: float) -> list[CellComparison]:
    """Adjust every tested cell's p with Holm, then name each direction (and, short of one, the approximate n).

    The approximate n is for independent samples only: a paired design's
    power rests on how often pairs disagree, which the rates do not show.
    """
    tested = [index for index, cell in enumerate(cells) if cell.p_exact is not None]
    adjusted = dict(zip(tested, holm([Fraction(cells[index].p_exact or 1) for index in tested]), strict=True))
    decided = []
    for index, cell in enumerate(cells):
        if index not in adjusted or cell.base is None or cell.candidate is None:
            decided.append(cell)
            continue
        direction = _direction(cell, adjusted[index], alpha)
        base_rate, cand_rate = cell.base.rate, cell.candidate.rate
        approx = None
        if direction == NO_DIFFERENCE and cell.pairs is None and base_rate is not None and cand_rate is not None:
            approx = attempts_for_power(base_rate, cand_rate, alpha / len(tested))
        update = {"p_adjusted": float(adjusted[index]), "direction": direction, "approx_attempts_per_side": approx}
        decided.append(cell.model_copy(update=update))
    return decided


def _warnings(base: Side, candidates: Sequence[Side], tested: int) -> list[str]:
    warnings = []
    if tested < WEAK_BELOW_CELLS:
        warnings.append(f"only {tested} cell test(s), fewer than {WEAK_BELOW_CELLS}: the comparison is weak")
    for candidate in candidates:
        differ = [
            name
            for name in sorted(set(base.provenance) | set(candidate.provenance))
            if base.provenance.get(name) != candidate.provenance.get(name)
        ]
        for name in differ:
            before = ", ".join(base.provenance.get(name, [])) or "-"
            after = ", ".join(candidate.provenance.get(name, [])) or "-"
            warnings.append(f"{candidate.campaign}: the sides differ in {name}: {before} -> {after}")
        if len(differ) > 1 and candidate.variant is None:
            warnings.append(
                f"{candidate.campaign} differs from the base in {len(differ)} things ({', '.join(differ)}):"
                " a change cannot be put down to one alone"
            )
    return warnings


def _comparison(
    design: Literal["independent", "paired"],
    alpha: float,
    base: Side,
    candidates: list[Side],
    cells: list[CellComparison],
) -> Comparison:
    cells = _decide(sorted(cells, key=lambda cell: cell.execution_id), alpha)
    counts = Counter(cell.direction for cell in cells)
    return Comparison(
        design=design,
        alpha=alpha,
        base=base,
        candidates=candidates,
        cells=cells,
        counts={name: counts.get(name, 0) for name in DIRECTIONS},
        warnings=_warnings(base, candidates, sum(1 for cell in cells if cell.test)),
    )


def compare_independent(folders: Sequence[Path], alpha: float = DEFAULT_ALPHA) -> Comparison:
    """Each campaign after the first tested against the first, every cell as two independent samples."""
    loaded = [load_campaign(folder) for folder in folders]
    for side in loaded:
        if paired_variants(side) is not None:
            raise CompareError(
                f"{side.folder.name} is a paired campaign: compare its variants with `harness compare {side.folder.name}`"
            )
    counts = [{cell: side_counts(ends) for cell, ends in side.ends().items()} for side in loaded]
    cells = [
        _independent(cell, side.folder.name, counts[0].get(cell), found.get(cell))
        for side, found in zip(loaded[1:], counts[1:], strict=True)
        for cell in sorted(set(counts[0]) | set(found))
    ]
    sides = [side_of(side, side.records, side.plan, None) for side in loaded]
    return _comparison("independent", alpha, sides[0], sides[1:], cells)


def compare_paired(folder: Path, alpha: float = DEFAULT_ALPHA) -> Comparison:
    """A paired campaign's base variant against its candidate, on the pairs its attempts recorded only."""
    loaded = load_campaign(folder)
    variants = paired_variants(loaded)
    if variants is None:
        raise CompareError(
            f"{folder.name} is not a paired campaign (no attempt carries a pair id): name a second campaign to compare"
            " it with"
        )
    labels = [label for label, _ in variants]
    by_variant = [[r for r in loaded.records if r.pair and r.pair.variant == label] for label in labels]
    ends = [loaded.ends(records) for records in by_variant]
    cells = []
    for cell in sorted(set(ends[0]) | set(ends[1])):
        base, cand = (side_counts(found[cell]) if cell in found else None for found in ends)
        compared = _independent(cell, labels[1], base, cand)
        if base is not None and cand is not None:
            pairs = pair_counts(ends[0][cell], ends[1][cell])
            p = mcnemar_exact(pairs.pass_to_fail, pairs.fail_to_pass)
            compared = compared.model_copy(
                update={"pairs": pairs, "test": MCNEMAR, "p_value": float(p), "p_exact": str(p)}
            )
        cells.append(compared)
    sides = [
        side_of(loaded, records, settings, label)
        for records, (label, settings) in zip(by_variant, variants, strict=True)
    ]
    comparison = _comparison("paired", alpha, sides[0], sides[1:], cells)
    if unpaired := sum(1 for record in loaded.records if record.pair is None):
        comparison.warnings.append(f"{unpaired} attempt(s) carry no pair id and were left out")
    if broken := sum(loaded.broken.values()):
        comparison.warnings.append(f"{broken} package(s) have no readable record, so no variant: left out")
    return comparison


def compare(references: Sequence[str], results: Path = Path("results"), alpha: float = DEFAULT_ALPHA) -> Comparison:
    """One paired campaign, or two or more independent ones (raises CompareError)."""
    if not 0 < alpha < 1:
        raise CompareError(f"--alpha {alpha:g}: must lie between 0 and 1")
    folders = [campaign_folder(reference, results) for reference in references]
    if len(folders) == 1:
        return compare_paired(folders[0], alpha)
    return compare_independent(folders, alpha)


def comparison_name(comparison: Comparison) -> str:
    """The file stem a comparison is kept under: its sides' names."""
    if comparison.design == "paired":
        return f"{comparison.base.campaign}--paired"
    return "--".join([comparison.base.campaign, *(side.campaign for side in comparison.candidates)])


def record_comparison(comparison: Comparison, results: Path) -> Path:
    """Keep the comparison beside the campaigns (the report shows every one kept)."""
    folder = results / COMPARISONS_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{comparison_name(comparison)}.json"
    path.write_text(comparison.model_dump_json(indent=2) + "\n")
    return path


def read_comparisons(roots: Sequence[Path]) -> list[tuple[Path, Comparison | str]]:
    """Every comparison kept under the roots; an unreadable one (or one of an older schema) as a message."""
    found: list[tuple[Path, Comparison | str]] = []
    for root in roots:
        for path in sorted((root / COMPARISONS_FOLDER).glob("*.json")):
            try:
                found.append((path, Comparison.model_validate_json(path.read_text())))
            except (ValueError, OSError) as error:
                found.append((path, f"unreadable comparison: {str(error).splitlines()[0]}"))
    return found


def comparison_schema_text() -> str:
    """The published JSON Schema of ``harness compare --json``."""
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"urn:everyday-evals:comparison:v{COMPARISON_SCHEMA_VERSION}",
        **Comparison.model_json_schema(),
    }
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"
