"""The figures behind repeated attempts: pure functions over counts (the tests that compare them: significance.py).

Denominator policy: only *decisive* attempts (``passed`` and ``failed``)
enter a rate, pass@k or pass^k. Infrastructure failures, ``unexercised``,
``skipped`` and interrupted attempts say nothing about the product or the
agent, so they are counted beside the figures (``Tally``), never folded in:
folding them in as failures would blame the agent for the machine, and as
passes would hide them.
"""

from __future__ import annotations

from math import comb, sqrt

from pydantic import BaseModel, Field

Z_95 = 1.959963984540054
"""The standard normal quantile of 0.975: a two-sided 95 % interval."""
DECISIVE = ("passed", "failed")
MIN_TRANSITIONS = 2
"""A change of direction needs at least this many transitions one way (and none the other), as 003_*.txt states."""


class Interval(BaseModel):
    low: float
    high: float


def wilson(passes: int, n: int, z: float = Z_95) -> Interval:
    """The Wilson score interval of a binomial proportion (95 % by default); [0, 1] when n is 0.

    Chosen over the normal (Wald) interval because it stays inside [0, 1] and
    does not collapse to a point at 0 or n passes, which is where small
    samples of agent runs usually sit.
    """
    if n < 0 or not 0 <= passes <= n:
        raise ValueError(f"need 0 <= passes <= n, got {passes} of {n}")
    return _wilson_around(passes / n, n, z) if n else Interval(low=0.0, high=1.0)


def _wilson_around(p: float, n: int, z: float = Z_95) -> Interval:
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z / denominator * sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return Interval(low=max(0.0, centre - half), high=min(1.0, centre + half))


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased estimate that at least one of k attempts passes: 1 - C(n-c, k) / C(n, k) (Chen et al., 2021)."""
    _check_k(n, c, k)
    return 1 - comb(n - c, k) / comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Unbiased estimate that every one of k attempts passes (tau-bench's pass^k): C(c, k) / C(n, k)."""
    _check_k(n, c, k)
    return comb(c, k) / comb(n, k)


def _check_k(n: int, c: int, k: int) -> None:
    if not (0 <= c <= n and 1 <= k <= n):
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")


class Tally(BaseModel):
    """How a set of attempts ended: decisive ones in ``passed``/``failed``, every other ending beside them."""

    passed: int = 0
    failed: int = 0
    infrastructure_failed: int = 0
    unexercised: int = 0
    skipped: int = 0
    interrupted: int = 0

    @property
    def n(self) -> int:
        """Decisive attempts: the only denominator."""
        return self.passed + self.failed

    def add(self, ending: str) -> None:
        setattr(self, ending, getattr(self, ending) + 1)

    def beside(self) -> dict[str, int]:
        """The non-decisive endings that happened (zeros left out)."""
        counts = self.model_dump(exclude=set(DECISIVE))
        return {ending: count for ending, count in counts.items() if count}


class CellFigures(BaseModel):
    """Per cell: decisive n, rate with its Wilson 95 % interval, pass@k and pass^k for k = 1..n."""

    tally: Tally
    n: int
    rate: float | None = Field(description="passed / n; None when no attempt was decisive")
    interval: Interval
    pass_at_k: dict[int, float] = Field(description="k -> unbiased pass@k over the n decisive attempts")
    pass_hat_k: dict[int, float] = Field(description="k -> unbiased pass^k (every one of k passes)")
    failed_checks: dict[str, int] = Field(default_factory=dict, description="check id -> attempts it failed in")


def cell_figures(tally: Tally, failed_checks: dict[str, int] | None = None) -> CellFigures:
    n, c = tally.n, tally.passed
    return CellFigures(
        tally=tally,
        n=n,
        rate=c / n if n else None,
        interval=wilson(c, n),
        pass_at_k={k: pass_at_k(n, c, k) for k in range(1, n + 1)},
        pass_hat_k={k: pass_hat_k(n, c, k) for k in range(1, n + 1)},
        failed_checks=dict(sorted((failed_checks or {}).items())),
    )


class SuiteFigures(BaseModel):
    cells: int = Field(description="cells with at least one decisive attempt")
    mean: float | None = Field(description="the mean of those cells' pass rates (each cell weighs the same)")
    interval: Interval


def suite_mean(rates: list[float]) -> SuiteFigures:
    """The mean of the cells' pass rates, with a Wilson 95 % interval taken over the number of cells.

    Why this interval: the attempts of one cell are not independent of each
    other (same story, same product), so pooling every attempt of the suite
    into one binomial would claim far more certainty than it has. The cell is
    the unit: each weighs the same, and the mean m of m values in [0, 1]
    has a variance at most mean(1 - mean) / m whatever the spread within or
    between cells, which is the binomial variance Wilson's interval assumes.
    It is therefore conservative, stays inside [0, 1] and does not collapse
    when every cell passed; it assumes the cells are independent of each
    other and widens as fewer of them have decisive attempts.
    """
    if not rates:
        return SuiteFigures(cells=0, mean=None, interval=Interval(low=0.0, high=1.0))
    mean = sum(rates) / len(rates)
    return SuiteFigures(cells=len(rates), mean=mean, interval=_wilson_around(mean, len(rates)))


def direction(pass_to_fail: int, fail_to_pass: int) -> str:
    """The 003 rule: a change needs at least two transitions the same way and none the opposite way.

    ``regressed`` or ``improved`` when it holds; ``unchanged`` when there was
    no transition at all; ``inconclusive`` otherwise (transitions both ways,
    or too few one way).
    """
    if pass_to_fail >= MIN_TRANSITIONS and fail_to_pass == 0:
        return "regressed"
    if fail_to_pass >= MIN_TRANSITIONS and pass_to_fail == 0:
        return "improved"
    if pass_to_fail == fail_to_pass == 0:
        return "unchanged"
    return "inconclusive"
