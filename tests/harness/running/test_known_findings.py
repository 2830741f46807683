"""Known findings: a product defect the stories found is expected to fail as declared, and only that way."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from pydantic import ValidationError

from harness.core import registry
from harness.core.catalog import KnownFinding, ProductDeclaration, Suite
from harness.core.outcomes import is_known_finding, unexpected
from harness.core.records import AttemptRecord, CellIdentity, CheckRecord, Provenance, Timing
from harness.core.verdicts import EvidenceMode, Verdict
from harness.running.campaign import exit_status, summary

STOP = KnownFinding(
    case="stop-redirect",
    checks=("stop.process-group-gone",),
    may_also_fail=("stop.reply-has-nonce", "stop.workspace-unchanged", "lifecycle.messages-handed-once"),
    what="a run carries on the stopped work",
    reproduction="cancel-recorded-after-kill",
)
PAPERCLIP_STOP = next(
    c
    for c in registry.catalog().cells()
    if c.execution_id == "everyday-workflows-paperclip.scripted.paperclip-local.stop-redirect"
)
TESTBED_STOP = next(
    c
    for c in registry.catalog().cells()
    if c.execution_id == "everyday-workflows-scripted.scripted.local.stop-redirect"
)


def record(
    execution_id: str, verdict: Verdict, failed: tuple[str, ...] = (), passed: tuple[str, ...] = ()
) -> AttemptRecord:
    suite, profile, environment, case = execution_id.split(".")
    return AttemptRecord(
        campaign="c",
        attempt="1-abcd",
        cell=CellIdentity(execution_id=execution_id, suite=suite, profile=profile, environment=environment, case=case),
        verdict=verdict,
        reason="why",
        checks=[CheckRecord(id=c, passed=False) for c in failed] + [CheckRecord(id=c, passed=True) for c in passed],
        timing=Timing(started_at=datetime.now(UTC), deadline_s=60),
        provenance=Provenance(
            source_revision="r",
            source_dirty=False,
            harness_digest="d",
            suite_definition_hash="h",
            evidence_mode=EvidenceMode.SCRIPTED,
        ),
    )


@pytest.mark.parametrize(
    ("failed", "explained"),
    [
        ({"stop.process-group-gone"}, True),
        ({"stop.process-group-gone", "stop.reply-has-nonce", "lifecycle.messages-handed-once"}, True),
        (set(), False),  # the declared check passed
        ({"stop.reply-has-nonce"}, False),  # only a may-also check
        ({"stop.process-group-gone", "lifecycle.runs-succeeded"}, False),  # something new failed beside it
    ],
)
def test_a_finding_explains_its_checks_and_nothing_else(failed: set[str], explained: bool) -> None:
    assert STOP.explains(failed) is explained


def test_a_cell_failing_as_its_finding_declares_is_expected_and_marked_in_the_summary() -> None:
    assert PAPERCLIP_STOP.known_finding is not None
    as_declared = record(PAPERCLIP_STOP.execution_id, Verdict.FAILED, failed=PAPERCLIP_STOP.known_finding.checks)
    assert is_known_finding(as_declared, PAPERCLIP_STOP.known_finding)
    assert unexpected(as_declared, PAPERCLIP_STOP.known_finding) is None
    assert exit_status([as_declared], [PAPERCLIP_STOP]) == 0
    assert "failed (known finding)" in summary([as_declared], [PAPERCLIP_STOP], Path("results"), "c")


@pytest.mark.parametrize(
    ("verdict", "failed", "says"),
    [
        (Verdict.PASSED, (), "remove it if the product was fixed"),
        (Verdict.FAILED, ("lifecycle.runs-succeeded",), "failed on lifecycle.runs-succeeded, not as its known finding"),
        (Verdict.INFRASTRUCTURE_FAILED, (), "infrastructure_failed on no check"),
        (Verdict.UNEXERCISED, (), "unexercised on no check"),
    ],
)
def test_a_cell_with_a_finding_that_passes_or_fails_otherwise_ends_the_run_non_zero(
    verdict: Verdict, failed: tuple[str, ...], says: str
) -> None:
    other = record(PAPERCLIP_STOP.execution_id, verdict, failed=failed)
    problem = unexpected(other, PAPERCLIP_STOP.known_finding)
    assert problem is not None and says in problem
    assert exit_status([other], [PAPERCLIP_STOP]) == 1


def test_without_a_finding_only_a_pass_or_a_skip_is_expected() -> None:
    assert TESTBED_STOP.known_finding is None
    same_failure = record(TESTBED_STOP.execution_id, Verdict.FAILED, failed=("stop.process-group-gone",))
    assert exit_status([same_failure], [TESTBED_STOP]) == 1
    assert exit_status([record(TESTBED_STOP.execution_id, Verdict.PASSED)], [TESTBED_STOP]) == 0
    assert exit_status([record(TESTBED_STOP.execution_id, Verdict.SKIPPED)], [TESTBED_STOP]) == 0
    assert exit_status([], [TESTBED_STOP]) == 1  # a cell without a record never counts as expected


def test_a_finding_must_name_a_case_of_its_suite_once() -> None:
    suite = next(s for s in registry.catalog().suites if s.known_findings)
    with pytest.raises(ValidationError, match="cases it does not hold"):
        Suite(**{**suite.model_dump(), "known_findings": (STOP.model_copy(update={"case": "no-such-case"}),)})
    with pytest.raises(ValidationError, match="more than one known finding"):
        Suite(**{**suite.model_dump(), "known_findings": (STOP, STOP)})


def test_only_product_findings_are_declared_never_on_the_testbed() -> None:
    """The testbed is ours: a story failing there is our defect to fix, never a finding to declare."""
    assert all(
        not suite.known_findings
        for suite in registry.catalog().suites
        if all(environment.product == "testbed" for environment in suite.environments)
    )


def test_a_finding_on_a_check_its_product_cannot_observe_is_refused_when_the_catalog_loads() -> None:
    paperclip = registry.product("paperclip")
    assert "process-group-gone" not in paperclip.observes and "message-read" not in paperclip.observes
    unobservable = STOP.model_copy(update={"checks": ("lifecycle.messages-handed-once",), "may_also_fail": ()})
    with pytest.raises(ValidationError, match="not observable here .paperclip does not expose message-read"):
        ProductDeclaration.model_validate({**paperclip.model_dump(), "known_findings": (unobservable,)})
    observable = STOP.model_copy(update={"checks": ("stop.nothing-ran-after-stop",), "may_also_fail": ()})
    assert ProductDeclaration.model_validate({**paperclip.model_dump(), "known_findings": (observable,)})


def test_a_finding_names_exact_checks_never_a_family() -> None:
    with pytest.raises(ValidationError, match="exact, not patterns"):
        STOP.model_copy(update={"may_also_fail": ("stop.*",)}).model_validate(
            {**STOP.model_dump(), "may_also_fail": ("stop.*",)}
        )
    assert not STOP.explains({"stop.process-group-gone", "stop.run-cancelled"})  # not declared: a new regression


def test_an_intermittent_finding_expects_its_failure_or_a_pass_and_nothing_else() -> None:
    racy = STOP.model_copy(update={"intermittent": True})
    assert unexpected(record(PAPERCLIP_STOP.execution_id, Verdict.PASSED), racy) is None
    as_declared = record(PAPERCLIP_STOP.execution_id, Verdict.FAILED, failed=("stop.process-group-gone",))
    assert unexpected(as_declared, racy) is None
    other = record(PAPERCLIP_STOP.execution_id, Verdict.FAILED, failed=("lifecycle.runs-succeeded",))
    assert unexpected(other, racy) is not None
    assert unexpected(record(PAPERCLIP_STOP.execution_id, Verdict.PASSED), STOP) is not None  # a steady one: fixed
