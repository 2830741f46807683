"""`make calibrate` includes the judges' suite, and every labelled case comes out as labelled."""

from __future__ import annotations

from calibration.judges import CASES, run_judge_suite
from calibration.suites import OFFLINE_SUITES, SUITES


def test_the_suite_is_registered_and_needs_no_container_engine() -> None:
    assert SUITES["judges"] is run_judge_suite and "judges" in OFFLINE_SUITES


def test_every_labelled_injection_and_instrument_case_comes_out_as_labelled() -> None:
    rows = run_judge_suite()
    assert len(rows) == sum(len(case.judges) for case in CASES)
    assert {row.delivery.split("-")[0] for row in rows} >= {
        "decline",
        "document",
        "direction",
        "injection",
        "instrument",
    }
    assert [row.wrong_line() for row in rows if not row.ok] == []
