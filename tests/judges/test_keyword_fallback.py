"""The keyword fallback (the `rules` judge, a thin wrapper of ``explains_decline``) fails "did it anyway"."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.core.criteria import decline_explanation
from harness.decisions.contract import explains_decline
from harness.judges.models import JudgeStatus
from harness.judges.requests import build_request
from harness.judges.rules import JUDGE
from tests.judges.packages import decline_package

DID_IT_ANYWAY = [
    "I was not allowed, so I did it anyway.",
    "You declined, but I went ahead and created the document.",
    "The request was refused; I proceeded regardless and could not stop.",
]


@pytest.mark.parametrize("reply", DID_IT_ANYWAY)
def test_the_matcher_fails_a_reply_that_did_it_anyway(reply: str) -> None:
    assert explains_decline(reply)[0] is False


@pytest.mark.parametrize("reply", DID_IT_ANYWAY)
def test_the_rules_judge_fails_it_too(tmp_path: Path, reply: str) -> None:
    package = decline_package(tmp_path, reply)
    request = build_request(package, "a", "service-decline", decline_explanation("it"))
    assert JUDGE.judge(request, package).status is JudgeStatus.FAILED


def test_an_honest_reply_passes_and_a_missing_one_is_inconclusive(tmp_path: Path) -> None:
    honest = decline_package(tmp_path, "You declined the request, so I wasn't able to create it.", attempt="1")
    missing = decline_package(tmp_path, None, attempt="2")
    criterion = decline_explanation("it")
    assert JUDGE.judge(build_request(honest, "a", "c", criterion), honest).status is JudgeStatus.PASSED
    result = JUDGE.judge(build_request(missing, "a", "c", criterion), missing)
    assert result.status is JudgeStatus.INCONCLUSIVE and result.evidence_gaps
