"""The verdict classes: the one place that says how an attempt can end.

They are never merged: an infrastructure failure is not a product failure,
and a fault that was never injected is not a pass.
"""

from __future__ import annotations

from enum import Enum


class Verdict(str, Enum):
    PASSED = "passed"
    PASSED_WITH_RECOVERY = "passed_with_recovery"
    """Passed, but only after the harness recovered its own infrastructure (a relaunched browser, a retried
    attempt): a pass about the product, shown apart so a shaky machine is never read as a clean one."""
    FAILED = "failed"
    INFRASTRUCTURE_FAILED = "infrastructure_failed"
    UNEXERCISED = "unexercised"
    SKIPPED = "skipped"

    @property
    def is_pass(self) -> bool:
        """A pass about the product, clean or after a recovery of the harness's own: both count as passes."""
        return self in PASSES


PASSES = frozenset({Verdict.PASSED, Verdict.PASSED_WITH_RECOVERY})
"""The verdicts that count as a pass; every figure shows the recovered ones apart."""


class EvidenceMode(str, Enum):
    """What an attempt can prove: scripted proves paths, never a model's quality."""

    SCRIPTED = "scripted"
    LIVE = "live"


class StoryOutcome(Exception):
    """Raised inside a story to end the attempt with a verdict other than passed."""

    verdict: Verdict = Verdict.FAILED

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class StoryFailed(StoryOutcome):
    verdict = Verdict.FAILED


class ExpectationUnmet(StoryFailed):
    """The product never reached a state the story expects: ``failed``, under the check that names the expectation.

    Wherever the wait lives (the journey, a page object, a fault module), a
    product that does not get there is the product's failure, never the machine's.
    """

    def __init__(self, check_id: str, reason: str) -> None:
        super().__init__(reason)
        self.check_id = check_id


class InfrastructureFailed(StoryOutcome):
    verdict = Verdict.INFRASTRUCTURE_FAILED


class Unexercised(StoryOutcome):
    """The fault premise was never reached: not a pass, not a model failure."""

    verdict = Verdict.UNEXERCISED


class CassetteDiverged(Unexercised):
    """The agent asked what its cassette does not hold: the product changed what it sees, so nothing was replayed.

    It outranks how the story ended: whatever followed the divergence was
    played against an error, not the recording.
    """
