"""Exact hypothesis tests for comparing pass rates, and the multiple-comparison and sample-size figures beside them.

Why exact: agent campaigns have a handful of attempts per cell, where the
normal approximations behind chi-squared tests are wrong in the direction
that matters (they call small differences significant). Every p-value here
is a ``Fraction`` summed from ``math.comb`` terms, so a test can state the
value a statistics textbook gives (1/15, 2/70) and compare it exactly, and
two-sided tails are decided by exact equality of probabilities, never by a
floating-point tolerance.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from math import ceil, comb, sqrt
from statistics import NormalDist

POWER = 0.8
"""The power the sample-size approximation aims at: the convention most study designs use."""


def _hypergeometric(k: int, n1: int, n2: int, x: int) -> Fraction:
    """P(X = x): x of the k successes fall in the first row of sizes n1 and n2."""
    return Fraction(comb(k, x) * comb(n1 + n2 - k, n1 - x), comb(n1 + n2, n1))


def fisher_exact(passed_a: int, n_a: int, passed_b: int, n_b: int) -> Fraction:
    """Two-sided p of Fisher's exact test on the 2x2 table (passed, failed) x (side a, side b).

    The p-value sums the probabilities of every table with the same margins
    that is no more likely than the one observed (the "minimum likelihood"
    two-sided rule R's ``fisher.test`` uses). A side with no attempts leaves
    one possible table: p = 1.
    """
    for passed, n in ((passed_a, n_a), (passed_b, n_b)):
        if not 0 <= passed <= n:
            raise ValueError(f"need 0 <= passed <= n, got {passed} of {n}")
    k = passed_a + passed_b
    low, high = max(0, k - n_b), min(k, n_a)
    observed = _hypergeometric(k, n_a, n_b, passed_a)
    p = sum((q for x in range(low, high + 1) if (q := _hypergeometric(k, n_a, n_b, x)) <= observed), Fraction(0))
    return min(Fraction(1), p)


def mcnemar_exact(pass_to_fail: int, fail_to_pass: int) -> Fraction:
    """Two-sided exact p of McNemar's test: the binomial sign test on the discordant pairs; 1 when there are none.

    Under no difference each discordant pair goes either way with chance 1/2,
    so the count one way is Binomial(discordant, 1/2); the smaller tail is
    doubled and capped at 1. Concordant pairs carry no information about a
    difference and are left out, which is why only recorded pairs may enter.
    """
    if pass_to_fail < 0 or fail_to_pass < 0:
        raise ValueError(f"counts cannot be negative: {pass_to_fail}, {fail_to_pass}")
    total = pass_to_fail + fail_to_pass
    if total == 0:
        return Fraction(1)
    tail = Fraction(sum(comb(total, i) for i in range(min(pass_to_fail, fail_to_pass) + 1)), 2**total)
    return min(Fraction(1), 2 * tail)


def holm(p_values: Sequence[Fraction]) -> list[Fraction]:
    """Holm's step-down adjustment, in the input's order: the family's chance of any false alarm stays below alpha.

    Sorted ascending, the i-th of m values is multiplied by (m - i), capped
    at 1, and never allowed below the one before it. Tied values get the same
    adjusted value, so the result does not depend on the order cells are read.
    """
    order = sorted(range(len(p_values)), key=lambda index: p_values[index])
    adjusted: list[Fraction] = [Fraction(0)] * len(p_values)
    running = Fraction(0)
    for rank, index in enumerate(order):
        running = max(running, min(Fraction(1), (len(p_values) - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def attempts_for_power(rate_a: float, rate_b: float, alpha: float, power: float = POWER) -> int | None:
    """Roughly how many attempts per side would detect this difference in rates; None when there is none.

    An approximation, not an exact power computation: the normal
    approximation for two independent proportions with Fleiss' continuity
    correction (Fleiss, Tytun and Ury, 1980), which tracks Fisher's exact
    test far better than the uncorrected formula at small n.
    """
    delta = abs(rate_a - rate_b)
    if delta == 0:
        return None
    normal = NormalDist()
    z_alpha, z_power = normal.inv_cdf(1 - alpha / 2), normal.inv_cdf(power)
    mean = (rate_a + rate_b) / 2
    spread = z_alpha * sqrt(2 * mean * (1 - mean)) + z_power * sqrt(rate_a * (1 - rate_a) + rate_b * (1 - rate_b))
    plain = spread**2 / delta**2
    return ceil(plain / 4 * (1 + sqrt(1 + 4 / (plain * delta))) ** 2)
