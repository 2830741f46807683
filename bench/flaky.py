"""``make flaky``: every free scripted testbed cell K times (default 10); the cells whose verdicts differ.

Our own stories must not be flaky: the same story against the same product
with the deterministic scripted agent must end the same way every time. The
cells run through the real ``harness run --attempts K`` in one campaign, and
the figures are read back from its attempt records: per cell the endings of
its K independent attempts, and for a flaky cell (more than one distinct
ending) the checks that failed in some of its attempts, with how often.
Exit 0 only when no cell is flaky.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections import Counter
from pathlib import Path

from bench.arguments import cell_id, count, output_folder
from harness.core.settings import new_campaign_id
from harness.results.epochs import by_cell, ending, figures, recorded_in
from harness.running.selection import select

FREE_SCRIPTED_PROFILE, TESTBED_ENVIRONMENT = "scripted", "local"
"""The testbed's cells with its built-in scripted agent: free and deterministic."""


def flaky_table(results: Path, campaign: str) -> tuple[list[str], int, int]:
    """One line per cell (its endings), the checks involved under each flaky one; how many cells, how many flaky."""
    folder = results / campaign
    records = [record for cell in sorted(folder.iterdir()) if cell.is_dir() for record in recorded_in(cell)]
    lines, flaky, cells = [], 0, by_cell(records)
    for execution_id, ends in cells.items():
        endings = Counter(ending(end) for end in ends)
        label = "FLAKY" if len(endings) > 1 else "steady"
        flaky += len(endings) > 1
        counts = ", ".join(f"{n} {name}" for name, n in sorted(endings.items()))
        lines.append(f"{label:<7} {execution_id}  ({counts})")
        if len(endings) > 1:
            checks = figures(ends).failed_checks
            involved = ", ".join(f"{check} failed {n}/{len(ends)}" for check, n in checks.items())
            lines.append(f"        checks: {involved or 'none failed (the endings differ by class only)'}")
    return lines, flaky, len(cells)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make flaky", description=__doc__.splitlines()[0])
    parser.add_argument("--attempts", type=count, default=10, metavar="K", help="attempts per cell (default 10)")
    parser.add_argument("--id", dest="ids", action="append", type=cell_id, default=[], help="only these cells")
    parser.add_argument("--results", type=output_folder, default=Path("results"), metavar="DIR")
    parser.add_argument("--max-parallel", type=count, default=1, metavar="N")
    args = parser.parse_args(argv)
    cells = (
        select(ids=tuple(args.ids))
        if args.ids
        else select(profiles=(FREE_SCRIPTED_PROFILE,), environments=(TESTBED_ENVIRONMENT,))
    )
    campaign = f"flaky-{new_campaign_id()}"
    command = [sys.executable, "-m", "harness.cli", "run", "--results", str(args.results), "--campaign", campaign]
    command += ["--attempts", str(args.attempts), "--max-parallel", str(args.max_parallel)]
    command += [part for cell in cells for part in ("--id", cell.execution_id)]
    subprocess.run(command, check=False)
    lines, flaky, played = flaky_table(args.results, campaign)
    print(f"\nflakiness over {args.attempts} attempt(s) of {len(cells)} cell(s), campaign {campaign}:")
    print("\n".join(lines))
    print(f"{flaky} flaky cell(s) of {played} played ({len(cells) - played} selected cell(s) never ran)")
    return 1 if flaky else 0


if __name__ == "__main__":
    sys.exit(main())
