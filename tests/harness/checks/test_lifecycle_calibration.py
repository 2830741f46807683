"""The lifecycle calibration suite: every synthetic bad record is rejected by its own check and no other."""

from __future__ import annotations

import pytest

from calibration.lifecycle_records import LIFECYCLE_CASES, LifecycleCase, failing_checks, run_lifecycle_suite
from calibration.suites import SUITES


@pytest.mark.parametrize("case", LIFECYCLE_CASES, ids=lambda case: case.name)
def test_each_record_fails_exactly_its_intended_check(case: LifecycleCase) -> None:
    assert failing_checks(case) == ([] if case.expected_check is None else [case.expected_check])


def test_the_required_bad_records_are_registered() -> None:
    names = {case.name for case in LIFECYCLE_CASES}
    assert {
        "missing-runner-identity",
        "unexpected-crash",
        "teammate-run-on-parent",
        "answer-left-in-review",
        "run-still-running",
        "unexcused-cancellation",
        "contention-exemption-with-pid",
        "more-runs-than-asked-for",
        "interrupted-run-later-failed",
    } <= names
    assert any(case.expected_check is None for case in LIFECYCLE_CASES)


def test_the_suite_is_part_of_calibration_and_all_its_rows_are_right() -> None:
    assert SUITES["lifecycle"] is run_lifecycle_suite
    rows = run_lifecycle_suite()
    assert len(rows) == len(LIFECYCLE_CASES) and all(row.ok for row in rows), [r for r in rows if not r.ok]
    assert {row.suite for row in rows} == {"lifecycle"}
