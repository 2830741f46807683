"""The estimators and the 003 direction rule against values worked out by hand (figures in each test's comment)."""

from __future__ import annotations

import pytest

from harness.results.statistics import (
    Tally,
    cell_figures,
    direction,
    pass_at_k,
    pass_hat_k,
    suite_mean,
    wilson,
)


def test_wilson_seven_of_ten() -> None:
    # p = .7, z^2 = 3.841459: centre = (.7 + .192073) / 1.384146 = .644493,
    # half = 1.959964 / 1.384146 * sqrt(.021 + .009604) = .247716
    interval = wilson(7, 10)
    assert interval.low == pytest.approx(0.396776, abs=1e-5)
    assert interval.high == pytest.approx(0.892208, abs=1e-5)


def test_wilson_does_not_collapse_at_the_edges() -> None:
    # 0 of 10: centre = .192073 / 1.384146 = .138767 = half, so [0, .277533]
    assert wilson(0, 10).low == 0.0
    assert wilson(0, 10).high == pytest.approx(0.277533, abs=1e-5)
    assert wilson(10, 10).low == pytest.approx(1 - 0.277533, abs=1e-5)
    assert wilson(0, 0).model_dump() == {"low": 0.0, "high": 1.0}


def test_wilson_refuses_impossible_counts() -> None:
    with pytest.raises(ValueError):
        wilson(4, 3)


def test_pass_at_k_and_pass_hat_k() -> None:
    # n = 5, c = 2, k = 2: C(3,2)/C(5,2) = 3/10, so pass@2 = .7; C(2,2)/C(5,2) = 1/10
    assert pass_at_k(5, 2, 2) == pytest.approx(0.7)
    assert pass_hat_k(5, 2, 2) == pytest.approx(0.1)
    # n = 4, c = 3, k = 3: C(1,3) = 0, so pass@3 = 1; C(3,3)/C(4,3) = 1/4
    assert pass_at_k(4, 3, 3) == 1.0
    assert pass_hat_k(4, 3, 3) == pytest.approx(0.25)
    # k = 1 is the plain rate, both ways
    assert pass_at_k(4, 3, 1) == pass_hat_k(4, 3, 1) == pytest.approx(0.75)
    with pytest.raises(ValueError):
        pass_at_k(3, 1, 4)


def test_cell_figures_keep_what_is_not_decisive_beside() -> None:
    tally = Tally(passed=2, failed=1, infrastructure_failed=2, interrupted=1)
    figures = cell_figures(tally, {"oracle.passed": 1})
    assert figures.n == 3
    assert figures.rate == pytest.approx(2 / 3)
    # n = 3, c = 2: pass@2 = 1 - C(1,2)/C(3,2) = 1; pass^2 = C(2,2)/C(3,2) = 1/3; pass^3 = 0
    assert figures.pass_at_k == {1: pytest.approx(2 / 3), 2: 1.0, 3: 1.0}
    assert figures.pass_hat_k == {1: pytest.approx(2 / 3), 2: pytest.approx(1 / 3), 3: 0.0}
    assert tally.beside() == {"infrastructure_failed": 2, "interrupted": 1}
    assert figures.failed_checks == {"oracle.passed": 1}


def test_no_decisive_attempt_has_no_rate() -> None:
    figures = cell_figures(Tally(skipped=3))
    assert (figures.n, figures.rate, figures.pass_at_k) == (0, None, {})


def test_suite_mean_uses_the_cells_as_the_unit() -> None:
    # two cells at 1.0: m = 2, centre = (1 + .960365) / 2.920730 = .671191,
    # half = 1.959964 / 2.920730 * sqrt(3.841459 / 16) = .328809
    figures = suite_mean([1.0, 1.0])
    assert figures.mean == 1.0
    assert figures.interval.low == pytest.approx(0.342382, abs=1e-5)
    assert figures.interval.high == pytest.approx(1.0)
    assert suite_mean([]).mean is None


@pytest.mark.parametrize(
    ("pass_to_fail", "fail_to_pass", "expected"),
    [
        (2, 0, "regressed"),
        (0, 3, "improved"),
        (1, 0, "inconclusive"),
        (2, 1, "inconclusive"),
        (0, 0, "unchanged"),
    ],
)
def test_direction_rule(pass_to_fail: int, fail_to_pass: int, expected: str) -> None:
    assert direction(pass_to_fail, fail_to_pass) == expected
