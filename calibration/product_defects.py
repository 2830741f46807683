"""Product-defect calibration: each defect built into the testbed must make its story fail on the intended check.

Personas prove the stories catch a bad agent; these prove they catch a bad
product. Each case runs the real story end to end (real product with one
defect switched on, real browser, real oracle) as `harness run
--product-defect NAME` plays it, and the attempt must end `failed` with the intended
check among its failures: not `infrastructure_failed`, not `unexercised`,
and not by running out of time (a defect caught only by the attempt deadline
is not caught by a check that names it).

A defect registered in the testbed without a case here fails calibration:
``missing_cases`` is checked before anything runs, and by a test.
"""

from __future__ import annotations

import re
from pathlib import Path

from calibration.defect_case import DefectCase
from calibration.defect_cases import DEFECT_CASES
from calibration.runner import Row, play_cell, played_rows
from harness.core.records import AttemptRecord
from harness.core.verdicts import Verdict
from harness.testbed.defects import REGISTRY

DEADLINE_REASON = re.compile(r"deadline\b.*\bexceeded", re.IGNORECASE)


def missing_cases() -> list[str]:
    """Defects the testbed can switch on that no case here calibrates (each one fails calibration)."""
    covered = {case.defect for case in DEFECT_CASES}
    return sorted(name for name in REGISTRY if name not in covered)


def unknown_defects() -> list[str]:
    """Cases naming a defect the testbed does not have (a typo would otherwise run the healthy product)."""
    return sorted(case.defect for case in DEFECT_CASES if case.defect not in REGISTRY)


def run_defect(case: DefectCase, results: Path) -> AttemptRecord | None:
    """Play the story's scripted cell (or the case's ``cell``) with the defect on, exactly as `harness run` plays it."""
    return play_cell(
        case.cell or case.case,
        results,
        case.campaign,
        product_defect=case.defect,
        pace_s=case.pace_s,
        deadline_s=case.deadline_s,
        scripted_persona=case.persona,
    )


def row_for(case: DefectCase, record: AttemptRecord | None) -> Row:
    """Caught only as `failed` with the intended check failing, and not by the deadline."""
    expected = f"fail {case.expected_check}"
    if record is None:
        return Row(
            suite="product-defects",
            delivery=case.label,
            mode="-",
            expected=expected,
            got="no attempt",
            deciding="-",
            detail="the run left no attempt.json",
            ok=False,
        )
    failed = record.failed_check_ids()
    by_deadline = bool(DEADLINE_REASON.search(record.reason))
    deciding = case.expected_check if case.expected_check in failed else (failed[0] if failed else "-")
    others = [check for check in failed if check != deciding]
    not_alone = case.alone and bool(set(others) - set(case.also_expected))
    missing = [check for check in case.also_expected if check not in failed]
    ok = (
        record.verdict is Verdict.FAILED
        and case.expected_check in failed
        and not missing
        and not by_deadline
        and not not_alone
    )
    got = (
        record.verdict.value
        + (" (deadline)" if by_deadline else "")
        + (" (not alone)" if not_alone else "")
        + (f" (without {', '.join(missing)})" if missing else "")
    )
    detail = record.reason[:240] + (f" [also failed: {', '.join(others[:6])}]" if others else "")
    return Row(
        suite="product-defects",
        delivery=case.label,
        mode="-",
        expected=expected,
        got=got,
        deciding=deciding,
        detail=detail,
        ok=ok,
    )


def registry_rows() -> list[Row]:
    """A wrong row for every defect without a case and every case without a defect."""
    rows = [
        Row(
            suite="product-defects",
            delivery=f"-/{name}",
            mode="-",
            expected="a calibration case",
            got="none",
            deciding="-",
            detail=f"defect {name} is registered in testbed/defects but no case calibrates it",
            ok=False,
        )
        for name in missing_cases()
    ]
    rows += [
        Row(
            suite="product-defects",
            delivery=f"-/{name}",
            mode="-",
            expected="a testbed defect",
            got="none",
            deciding="-",
            detail=f"a case names defect {name}, which the testbed does not have",
            ok=False,
        )
        for name in unknown_defects()
    ]
    return rows


def run_product_defect_suite(keep: Path | None = None) -> list[Row]:
    """Every defect's cell, in the cell workers every suite shares, in registration order."""
    cases = [case for case in DEFECT_CASES if case.defect in REGISTRY]
    return registry_rows() + played_rows(cases, run_defect, row_for, keep)
