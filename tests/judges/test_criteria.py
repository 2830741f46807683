"""Judged criteria belong to stories: the ones the suite promises are declared, each with evidence it can read."""

from __future__ import annotations

from harness.core import registry
from harness.judges.rules import fallback_rule

PROMISED = {
    "service-decline": "explanation-after-decline",
    "connection-decline": "explanation-after-decline",
    "provider-decline": "explanation-after-decline",
    "create-skill-studio": "document-does-request",
    "stop-redirect": "answers-new-direction",
}


def test_the_promised_criteria_are_declared_beside_their_stories_checks() -> None:
    declared = {case.name: {c.id for c in case.criteria} for case in registry.cases()}
    for case, criterion in PROMISED.items():
        assert criterion in declared[case], case


def test_each_criterion_judges_agent_text_and_names_a_rule_that_exists() -> None:
    for case in registry.cases():
        for criterion in case.criteria:
            assert any(need.role == "agent_text" for need in criterion.evidence), (case.name, criterion.id)
            assert all(need.path.startswith("snapshots/") for need in criterion.evidence)
            assert criterion.fallback is None or callable(fallback_rule(criterion.fallback))
