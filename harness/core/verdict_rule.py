"""The attempt's verdict from what was recorded: one pure function a regrade can call on a saved package.

Its inputs are the story's outcome (the verdict class and reason the story
ended with, before any check is counted), the check records and the
recoveries the harness recorded of its own infrastructure. No product,
browser, clock or file: the same inputs always give the same verdict.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.core.records import CheckRecord, Recovery
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
    if verdict.is_pass:
        return Verdict.FAILED, named
    if verdict is Verdict.INFRASTRUCTURE_FAILED:
        return Verdict.FAILED, f"{named} (then: {reason})"
    return verdict, f"{reason} ({named})"


def attempt_verdict(
    outcome: Verdict, reason: str, checks: Sequence[CheckRecord], recoveries: Sequence[Recovery]
) -> tuple[Verdict, str]:
    """The verdict and its reason: failed checks first (they outrank any pass), then a pass that needed a recovery.

    A pass after the harness recovered its own infrastructure stays a pass
    about the product, but is ``passed_with_recovery``, naming each recovery.
    Recoveries change nothing else: a failure is the product's whatever the
    machine did, and an infrastructure failure already says the machine broke.
    """
    verdict, reason = count_checks(outcome, reason, [check.id for check in checks if check.failed])
    if verdict.is_pass and recoveries:
        named = "; ".join(f"{recovery.kind.value}: {recovery.detail}" for recovery in recoveries)
        return Verdict.PASSED_WITH_RECOVERY, f"passed after the harness recovered its own infrastructure ({named})"
    return verdict, reason
