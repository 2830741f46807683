"""Run every Paperclip reproduction, one after the other, and say whether each declared finding still holds.

A reproduction's exit status is its verdict: 1 reproduced, 0 not reproduced,
anything else (2, a crash, a timeout) could not run. The command exits 0
only when every one reproduced; 1 when one no longer does (the product
changed: its known finding must go from the catalog, and the folder with
it); 2 when one could not run, which is never read as "not reproduced".
What each reproduction explains comes from the catalog: the known findings
whose ``reproduction`` names its folder.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from harness.core.catalog import KnownFinding

FINDINGS_DIR = Path(__file__).resolve().parent
SCRIPT = "reproduce.py"
TIMEOUT_S = 600.0
REPRODUCED, NOT_REPRODUCED, COULD_NOT_RUN = "reproduced", "not reproduced", "could not run"


@dataclass(frozen=True)
class Outcome:
    folder: str
    explains: str
    verdict: str
    seconds: float


def reproductions(root: Path = FINDINGS_DIR) -> list[Path]:
    """Every reproduction folder, by name."""
    return sorted(script.parent for script in root.glob(f"*/{SCRIPT}"))


def explained(findings: Iterable[KnownFinding]) -> dict[str, str]:
    """Folder name -> the cells and checks its reproduction explains (``case: check, check``; ``; `` between cells)."""
    found: dict[str, list[str]] = {}
    for finding in findings:
        found.setdefault(finding.reproduction, []).append(f"{finding.case}: {', '.join(finding.checks)}")
    return {folder: "; ".join(cells) for folder, cells in found.items()}


def run_one(folder: Path, explains: str, timeout: float = TIMEOUT_S) -> Outcome:
    """Run one reproduction with this interpreter; its output goes straight to ours."""
    print(f"==> {folder.name}", flush=True)
    started = time.monotonic()
    try:
        status: int | None = subprocess.run(
            [sys.executable, str(folder / SCRIPT)], cwd=folder, timeout=timeout
        ).returncode
    except subprocess.TimeoutExpired:
        print(f"{folder.name}: no verdict after {timeout:.0f} s")
        status = None
    verdict = {1: REPRODUCED, 0: NOT_REPRODUCED}.get(status, COULD_NOT_RUN) if status is not None else COULD_NOT_RUN
    return Outcome(folder.name, explains, verdict, time.monotonic() - started)


def table(outcomes: list[Outcome]) -> str:
    rows = [("finding", "explains (cell: checks)", "verdict", "seconds")]
    rows += [(o.folder, o.explains or "(no known finding names it)", o.verdict, f"{o.seconds:.1f}") for o in outcomes]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)) for row in rows)


def exit_status(outcomes: list[Outcome], missing: list[str]) -> tuple[int, list[str]]:
    """The command's exit status and the loud lines that explain a non-zero one."""
    lines = [f"ERROR: a known finding names reproduction {name!r}, which has no {SCRIPT}" for name in missing]
    lines += [
        f"ERROR: {o.folder} could not run: fix the set-up (`make paperclip`) and run again"
        for o in outcomes
        if o.verdict == COULD_NOT_RUN
    ]
    if lines:
        return 2, lines
    gone = [o for o in outcomes if o.verdict == NOT_REPRODUCED]
    lines = [
        f"FINDING NO LONGER REPRODUCES: {o.folder} ({o.explains or 'no known finding'}): Paperclip changed; its known "
        "finding must go from the catalog, and this folder with it"
        for o in gone
    ]
    return (1 if gone else 0), lines


def run_all(root: Path, declared: Mapping[str, str], timeout: float = TIMEOUT_S) -> int:
    folders = reproductions(root)
    missing = sorted(set(declared) - {folder.name for folder in folders})
    outcomes = [run_one(folder, declared.get(folder.name, ""), timeout) for folder in folders]
    print("\n" + table(outcomes))
    status, lines = exit_status(outcomes, missing)
    for line in lines:
        print(line)
    return status
