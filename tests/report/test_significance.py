"""The exact tests against values worked out by hand or published (each test's comment shows the sum)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from harness.results.significance import attempts_for_power, fisher_exact, holm, mcnemar_exact


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        # 4 of 4 against 0 of 2: N=6, K=4; P(4)=C(4,4)C(2,0)/C(6,4)=1/15 is the only table as unlikely
        ((4, 4, 0, 2), Fraction(1, 15)),
        # 4 of 4 against 0 of 4: P(4)=P(0)=1/70, the other tables 16/70, 36/70, 16/70
        ((4, 4, 0, 4), Fraction(2, 70)),
        # 2 of 2 against 0 of 2: P(2)=P(0)=1/6
        ((2, 2, 0, 2), Fraction(1, 3)),
        # Fisher's lady tasting tea, 3 of 4 against 1 of 4: (1 + 16 + 16 + 1)/70
        ((3, 4, 1, 4), Fraction(34, 70)),
        # a tie: the observed table is the most likely one
        ((2, 4, 2, 4), Fraction(1)),
        # zero rows: nothing on one side leaves one possible table
        ((0, 0, 3, 5), Fraction(1)),
        ((0, 0, 0, 0), Fraction(1)),
        # every attempt failed on both sides
        ((0, 3, 0, 5), Fraction(1)),
    ],
)
def test_fisher_exact_two_sided(table: tuple[int, int, int, int], expected: Fraction) -> None:
    assert fisher_exact(*table) == expected


def test_fisher_exact_is_symmetric_in_its_sides_and_matches_a_published_value() -> None:
    # The 2x2 table [[1, 9], [11, 3]] of Wikipedia's "Fisher's exact test" article: two-sided p = 0.002759
    assert float(fisher_exact(1, 10, 11, 14)) == pytest.approx(0.002759, abs=5e-7)
    assert fisher_exact(11, 14, 1, 10) == fisher_exact(1, 10, 11, 14)
    assert fisher_exact(9, 10, 3, 14) == fisher_exact(1, 10, 11, 14)  # passes and failures swapped


def test_fisher_refuses_impossible_counts() -> None:
    with pytest.raises(ValueError):
        fisher_exact(3, 2, 0, 1)


@pytest.mark.parametrize(
    ("worse", "better", "expected"),
    [
        (0, 5, Fraction(2, 32)),  # 2 * C(5,0) / 2^5
        (2, 0, Fraction(1, 2)),  # 2 * 1/4: two discordant pairs can never be significant
        (6, 0, Fraction(2, 64)),
        (1, 9, Fraction(2 * (1 + 10), 1024)),
        (3, 3, Fraction(1)),
        (0, 0, Fraction(1)),
    ],
)
def test_mcnemar_exact(worse: int, better: int, expected: Fraction) -> None:
    assert mcnemar_exact(worse, better) == expected == mcnemar_exact(better, worse)


def test_holm_steps_down_and_keeps_the_input_order() -> None:
    # sorted: .01 * 3 = .03; .03 * 2 = .06; .04 * 1 = .04, raised to the .06 before it
    found = holm([Fraction(1, 100), Fraction(4, 100), Fraction(3, 100)])
    assert found == [Fraction(3, 100), Fraction(6, 100), Fraction(6, 100)]
    # ties get the same value whichever comes first; nothing passes 1
    assert holm([Fraction(1, 2), Fraction(1, 2)]) == [Fraction(1), Fraction(1)]
    assert holm([]) == []


def test_attempts_for_power_is_a_usable_approximation() -> None:
    # 1.0 against 0.0: 4 per side, and Fisher agrees: 4 vs 4 gives 2/70 < .05, 3 vs 3 gives 2/20 > .05
    assert attempts_for_power(1.0, 0.0, 0.05) == 4
    assert fisher_exact(4, 4, 0, 4) < Fraction(5, 100) < fisher_exact(3, 3, 0, 3)
    # .6 against .4: the uncorrected formula's textbook 97 per group, 107 with Fleiss' continuity correction:
    # (1.95996 * sqrt(.5) + .84162 * sqrt(.48))^2 / .04 = 96.92; 96.92 / 4 * (1 + sqrt(1 + 4 / 19.38))^2 = 106.7
    assert attempts_for_power(0.6, 0.4, 0.05) == 107
    assert attempts_for_power(0.5, 0.5, 0.05) is None
