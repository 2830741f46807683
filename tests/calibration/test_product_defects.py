"""Every product defect makes its story fail on the intended check, never by the deadline.

One test per defect (the cells `make calibrate ARGS=product-defects` plays in its
shared slots), so pytest's workers share them out with the rest of the suite.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from calibration.product_defects import DEADLINE_REASON, DEFECT_CASES, DefectCase, registry_rows, row_for, run_defect
from harness.core.deadline import Deadline
from harness.core.records import AttemptRecord, CheckRecord
from harness.core.verdicts import Verdict
from tests.needs import PLAYS_CELLS, marked


def test_the_registry_and_the_cases_match() -> None:
    assert registry_rows() == [], [row.detail for row in registry_rows()]


def test_a_defect_that_must_fail_alone_is_not_caught_beside_another_check() -> None:
    [case] = [c for c in DEFECT_CASES if c.defect == "skill-card-missing"]
    assert case.alone

    def record(*failed: str) -> AttemptRecord:
        checks = [CheckRecord(id=check, passed=False) for check in failed]
        return AttemptRecord.model_construct(verdict=Verdict.FAILED, reason="failed checks", checks=checks)

    assert row_for(case, record(case.expected_check)).ok
    not_alone = row_for(case, record(case.expected_check, "skill.edit-saved"))
    assert not not_alone.ok and not_alone.got == "failed (not alone)"
    assert row_for(case.model_copy(update={"alone": False}), record(case.expected_check, "skill.edit-saved")).ok


def test_a_deadline_is_recognised_in_the_reason() -> None:
    assert DEADLINE_REASON.search(str(Deadline(120).exceeded("waiting for the revision on task 1")))
    assert not DEADLINE_REASON.search("failed checks: invariant.unread-count")


@marked(*PLAYS_CELLS)
@pytest.mark.parametrize("case", DEFECT_CASES, ids=[c.label for c in DEFECT_CASES])
def test_the_defect_is_caught_by_its_intended_check(case: DefectCase, tmp_path: Path) -> None:
    row = row_for(case, run_defect(case, tmp_path))
    assert row.ok, f"expected {row.expected}, got {row.got} (first failed check {row.deciding}): {row.detail}"
