"""The attempt's verdict from how its story ended and the checks it kept: one pure function, at run and at regrade."""

from __future__ import annotations

from collections.abc import Sequence

from harness.core.records import CheckRecord, Outcome
from harness.core.verdicts import Verdict


def count_checks(verdict: Verdict, reason: str, failed: list[str]) -> tuple[Verdict, str]:
    """A failed check is never hidden: it makes a pass or an infrastructure failure a failure, and is always named.

    Only what is not the product (Docker, the browser, the harness) may be
    ``infrastructure_failed``, and only that is retried: a product that broke
    a check while the machine also failed is still a product failure.
    """
    if not failed:
        return verdict, reason
    named = "failed checks: " + ", ".join(failed)
    if verdict is Verdict.PASSED:
        return Verdict.FAILED, named
    if verdict is Verdict.INFRASTRUCTURE_FAILED:
        return Verdict.FAILED, f"{named} (then: {reason})"
    return verdict, f"{reason} ({named})"


def verdict_of(outcome: Outcome, checks: Sequence[CheckRecord], interrupted: bool = False) -> tuple[Verdict, str]:
    """The verdict and its reason. An interrupted attempt keeps how it ended: its checks were cut short."""
    if outcome.secret_found is not None:
        return Verdict.FAILED, f"secret found in evidence: {outcome.secret_found}"
    if interrupted:
        return outcome.verdict, outcome.reason
    return count_checks(outcome.verdict, outcome.reason, [check.id for check in checks if check.failed])
