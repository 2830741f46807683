"""The verdict rules, decided in one place: a failed check is never hidden, only infrastructure stays infrastructure."""

from __future__ import annotations

import pytest

from harness.core.verdicts import Verdict
from harness.running.attempt import count_checks


def test_a_failed_check_turns_a_pass_into_a_failure_and_is_named() -> None:
    assert count_checks(Verdict.PASSED, "", ["invariant.unread-count"]) == (
        Verdict.FAILED,
        "failed checks: invariant.unread-count",
    )


def test_a_failed_check_is_never_hidden_behind_an_infrastructure_failure() -> None:
    verdict, reason = count_checks(
        Verdict.INFRASTRUCTURE_FAILED, "TargetClosedError: page closed", ["expect.stop-result-shown"]
    )
    assert verdict is Verdict.FAILED
    assert reason == "failed checks: expect.stop-result-shown (then: TargetClosedError: page closed)"


@pytest.mark.parametrize("verdict", [Verdict.FAILED, Verdict.UNEXERCISED])
def test_other_endings_keep_their_class_and_name_the_failed_checks(verdict: Verdict) -> None:
    assert count_checks(verdict, "why", ["lifecycle.tasks-done"]) == (
        verdict,
        "why (failed checks: lifecycle.tasks-done)",
    )


def test_without_failed_checks_the_ending_stands() -> None:
    assert count_checks(Verdict.INFRASTRUCTURE_FAILED, "docker gone", []) == (
        Verdict.INFRASTRUCTURE_FAILED,
        "docker gone",
    )
