"""`make calibrate` includes the judges' suite, and every labelled case comes out as labelled."""

from __future__ import annotations

from calibration.judges import CASES, agreement, run_judge_suite
from calibration.suites import OFFLINE_SUITES, SUITES


def test_the_suite_is_registered_and_needs_no_container_engine() -> None:
    assert SUITES["judges"] is run_judge_suite and "judges" in OFFLINE_SUITES


def test_every_labelled_injection_and_instrument_case_comes_out_as_labelled() -> None:
    rows = [row for row in run_judge_suite() if row.delivery != "agreement-with-labels"]
    assert len(rows) == sum(len(case.judges) for case in CASES)
    assert {row.delivery.split("-")[0] for row in rows} >= {
        "decline",
        "document",
        "direction",
        "injection",
        "instrument",
    }
    assert [row.wrong_line() for row in rows if not row.ok] == []


def test_agreement_with_the_labels_counts_caught_failures_and_kappa() -> None:
    perfect = agreement("j", [("failed", "failed"), ("passed", "passed"), ("inconclusive", "inconclusive")])
    assert (perfect.true_positive_rate, perfect.false_positive_rate, perfect.kappa) == (1.0, 0.0, 1.0)
    lenient = agreement("j", [("failed", "passed"), ("failed", "failed"), ("passed", "passed"), ("passed", "failed")])
    assert (lenient.true_positive_rate, lenient.false_positive_rate, lenient.kappa) == (0.5, 0.5, 0.0)


def test_a_judge_that_passes_a_must_fail_case_fails_its_agreement_row() -> None:
    from calibration.judges import _agreement_rows
    from calibration.runner import Row

    def row(expected: str, got: str) -> Row:
        return Row(
            suite="judges",
            delivery=f"x-{expected}",
            mode="m",
            expected=expected,
            got=got,
            deciding="c",
            detail="",
            ok=True,
        )

    (good,) = _agreement_rows([row("failed", "failed"), row("passed", "passed")])
    (bad,) = _agreement_rows([row("failed", "passed"), row("passed", "passed")])
    assert good.ok and not bad.ok and "x-failed" in bad.detail
