"""Grade every calibration case and compare the outcome with its expectation.

A row is wrong when a bad delivery passes, a good one fails, or a bad one
fails for a different check than expected; any wrong row fails the run.
"""

from __future__ import annotations

import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from pydantic import BaseModel

from calibration.deliveries import Case, HostTraps, cases
from calibration.traps import host_traps
from oracle import grade
from oracle.image import engine


class Row(BaseModel):
    """One line of the calibration table."""

    suite: str
    delivery: str
    mode: str
    expected: str
    got: str
    deciding: str
    detail: str
    ok: bool


def _grade_case(case: Case, traps: HostTraps, folder: Path, client) -> Row:
    path = folder / f"{case.name}-{case.mode.replace('+', '_')}.zip"
    path.write_bytes(case.build(traps))
    result = grade(path, case.mode, client=client)
    failed = next((c for c in result.checks if c.id == result.deciding_check), None)
    got = "pass" if result.passed else "fail"
    expected = "pass" if case.expected is None else f"fail {case.expected}"
    ok = result.passed if case.expected is None else (not result.passed and result.deciding_check == case.expected)
    return Row(suite="oracle", delivery=case.name, mode=case.mode, expected=expected, got=got, deciding=result.deciding_check or "-", detail=failed.detail if failed else "", ok=ok)


def run_oracle_suite(workers: int = 3) -> list[Row]:
    """Every oracle case, graded concurrently against real containers, in registration order."""
    client = engine()
    with host_traps() as traps, tempfile.TemporaryDirectory(prefix="everyday-calibration-zips-") as folder:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(lambda case: _grade_case(case, traps, Path(folder), client), cases()))


def table(rows: list[Row]) -> str:
    """A fixed-width table a maintainer can read at a glance."""
    header = ("", "delivery", "mode", "expected", "got", "deciding check")
    lines = [(("ok" if r.ok else "WRONG"), r.delivery, r.mode, r.expected, r.got, r.deciding) for r in rows]
    widths = [max(len(str(line[i])) for line in [header, *lines]) for i in range(len(header))]
    render = lambda line: "  ".join(str(cell).ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()  # noqa: E731
    return "\n".join([render(header), render(tuple("-" * w for w in widths)), *map(render, lines)])
