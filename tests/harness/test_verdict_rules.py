"""The verdict rules, decided in one place: a failed check is never hidden, only infrastructure stays infrastructure."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from harness.core.verdicts import Verdict
from harness.evidence.recorder import EvidenceRecorder
from harness.judging.verdict import count_checks
from harness.products.http import ProductApiError
from harness.running.attempt import AttemptContext, classify


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


def _context(tmp_path: Path) -> AttemptContext:
    return AttemptContext.model_construct(recorder=EvidenceRecorder(tmp_path / "attempt"))


def _product_error() -> ProductApiError:
    request = httpx.Request("GET", "http://127.0.0.1:1/api/tasks/1")
    return ProductApiError.of(httpx.Response(500, text="boom", request=request))


def test_a_running_product_answering_its_api_with_an_error_fails_under_a_named_check(tmp_path: Path) -> None:
    context = _context(tmp_path)
    verdict, reason = classify(_product_error(), context, product_running=True)
    assert verdict is Verdict.FAILED
    assert reason == "product.api-answered: GET /api/tasks/1 -> 500: boom"
    assert [(c.id, c.passed) for c in context.recorder.checks] == [("product.api-answered", False)]


def test_a_product_that_errs_while_starting_is_infrastructure(tmp_path: Path) -> None:
    context = _context(tmp_path)
    verdict, _ = classify(_product_error(), context, product_running=False)
    assert verdict is Verdict.INFRASTRUCTURE_FAILED
    assert context.recorder.checks == []
