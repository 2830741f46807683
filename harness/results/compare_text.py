"""`harness compare` as a person reads it in a terminal: one row per cell, or a matrix of cells by campaigns.

Each figure says what it was computed from: the counts beside each rate,
the test's name and exact p beside each direction, the excluded attempts
by reason under the row, and the approximate attempts per side where no
difference was detected.
"""

from __future__ import annotations

from collections import defaultdict

from harness.results.compare import NO_DIFFERENCE, POWER_NOTE, CellComparison, Comparison
from harness.results.counting import SideCounts


def rate_text(counts: SideCounts | None) -> str:
    """``3/4 75% [30-95]``; recovered passes named; ``-`` for a cell not on this side."""
    if counts is None:
        return "-"
    if counts.rate is None:
        return "no decisive"
    low, high = counts.interval.low, counts.interval.high
    recovered = f" ({counts.passed_with_recovery} recovered)" if counts.passed_with_recovery else ""
    return f"{counts.passed}/{counts.n} {100 * counts.rate:.0f}% [{100 * low:.0f}-{100 * high:.0f}]{recovered}"


def verdict_text(cell: CellComparison) -> str:
    """The direction with the p it rests on; short of a difference, roughly how many attempts would find it."""
    if cell.p_exact is None or cell.p_adjusted is None:
        return cell.direction
    text = f"{cell.direction} (p = {cell.p_exact}, Holm {cell.p_adjusted:.3g})"
    if cell.pairs is not None:
        rule = "holds" if cell.pairs.rule_holds else "does not hold"
        text += f"; pairs {cell.pairs.pairs}: {cell.pairs.pass_to_fail} pass->fail, {cell.pairs.fail_to_pass} fail->pass, 003 rule {rule}"
    if cell.direction == NO_DIFFERENCE and cell.approx_attempts_per_side:
        text += f"; ~{cell.approx_attempts_per_side} attempts per side would detect it"
    return text


def _excluded(cell: CellComparison) -> list[str]:
    parts = []
    for name, counts in (("base", cell.base), ("candidate", cell.candidate)):
        if counts and counts.excluded:
            parts.append(f"{name} " + ", ".join(f"{n} {reason}" for reason, n in counts.excluded.items()))
    if cell.pairs and cell.pairs.excluded:
        parts.append("pairs " + ", ".join(f"{n} {reason}" for reason, n in cell.pairs.excluded.items()))
    return [f"    excluded: {'; '.join(parts)}"] if parts else []


def _header(comparison: Comparison) -> list[str]:
    base = comparison.base
    if comparison.design == "paired":
        candidate = comparison.candidates[0]
        first = f"paired campaign {base.campaign}: base {base.variant} -> candidate {candidate.variant}"
        test = "McNemar's exact test on the recorded pairs, regressed/improved only where seed 003's rule holds too"
    else:
        names = ", ".join(side.campaign for side in comparison.candidates)
        first = f"base campaign {base.campaign} ({base.attempts} attempt(s)) -> {names}"
        test = "Fisher's exact test (two-sided) per cell, every attempt counted"
    read = "; ".join(
        f"{side.variant or side.campaign}: " + ", ".join(f"{n} from {where}" for where, n in side.read_from.items())
        for side in (base, *comparison.candidates)
        if any(where != "attempt.json" for where in side.read_from)
    )
    tests = f"{test}; Holm across {sum(1 for c in comparison.cells if c.test)} test(s), alpha {comparison.alpha}"
    return [first, tests] + ([f"verdicts read (regraded): {read}"] if read else [])


def _rows(comparison: Comparison) -> list[str]:
    width = max([len(cell.execution_id) for cell in comparison.cells] + [4])
    lines = [f"{'cell':<{width}}  {'base':<22} {'candidate':<22} direction"]
    for cell in comparison.cells:
        lines.append(
            f"{cell.execution_id:<{width}}  {rate_text(cell.base):<22} {rate_text(cell.candidate):<22}"
            f" {verdict_text(cell)}"
        )
        lines += _excluded(cell)
    return lines


def _matrix(comparison: Comparison) -> list[str]:
    """Cells down, campaigns across: each rate with its interval, each candidate's direction against the first."""
    by_cell: dict[str, list[CellComparison]] = defaultdict(list)
    for cell in comparison.cells:
        by_cell[cell.execution_id].append(cell)
    names = [comparison.base.campaign, *(side.campaign for side in comparison.candidates)]
    rows = {
        execution_id: [rate_text(cells[0].base), *(f"{rate_text(cell.candidate)} {cell.direction}" for cell in cells)]
        for execution_id, cells in by_cell.items()
    }
    width = max([len(cell) for cell in by_cell] + [4])
    columns = [max(len(text) for text in (name, *(row[i] for row in rows.values()))) for i, name in enumerate(names)]
    header = "  ".join(f"{name:<{w}}" for name, w in zip(names, columns, strict=True))
    lines = [f"{'cell':<{width}}  {header}".rstrip()]
    for execution_id, cells in by_cell.items():
        texts = zip(rows[execution_id], columns, strict=True)
        lines.append(f"{execution_id:<{width}}  " + "  ".join(f"{text:<{w}}" for text, w in texts).rstrip())
        for cell in cells:
            if cell.p_exact is not None:
                lines.append(f"    {cell.candidate_campaign}: {verdict_text(cell)}")
            lines += _excluded(cell)
    return lines


def table(comparison: Comparison) -> str:
    """The whole comparison: header, rows (or the matrix), the directions counted, the warnings."""
    body = _matrix(comparison) if len(comparison.candidates) > 1 else _rows(comparison)
    counts = ", ".join(f"{n} {name}" for name, n in comparison.counts.items())
    lines = [*_header(comparison), *body, f"directions: {counts}"]
    if any(cell.approx_attempts_per_side for cell in comparison.cells):
        lines.append(f"attempts per side: {POWER_NOTE}")
    lines += [f"warning: {warning}" for warning in comparison.warnings]
    return "\n".join(lines)
