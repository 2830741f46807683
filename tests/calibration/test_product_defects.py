"""Every product defect makes its story fail on the intended check, never by the deadline.

One test per defect (the cells `make calibrate ARGS=product-defects` runs two at
a time), so pytest's workers share them out with the rest of the suite.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from calibration.product_defects import DEADLINE_REASON, DEFECT_CASES, DefectCase, registry_rows, row_for, run_defect
from harness.core.deadline import Deadline


def test_the_registry_and_the_cases_match() -> None:
    assert registry_rows() == [], [row.detail for row in registry_rows()]


def test_a_deadline_is_recognised_in_the_reason() -> None:
    assert DEADLINE_REASON.search(str(Deadline(120).exceeded("waiting for the revision on task 1")))
    assert not DEADLINE_REASON.search("failed checks: invariant.unread-count")


@pytest.mark.parametrize("case", DEFECT_CASES, ids=[f"{c.case}/{c.defect}" for c in DEFECT_CASES])
def test_the_defect_is_caught_by_its_intended_check(case: DefectCase, tmp_path: Path) -> None:
    row = row_for(case, run_defect(case, tmp_path))
    assert row.ok, f"expected {row.expected}, got {row.got} (first failed check {row.deciding}): {row.detail}"
