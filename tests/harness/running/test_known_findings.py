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
from harness.core.signatures import FailureSignature, every_problem, unmatched
from harness.core.verdicts import EvidenceMode, Verdict
from harness.running.campaign import exit_status, summary

STOP = KnownFinding(
    case="stop-redirect",
    checks=("stop.process-group-gone",),
    may_also_fail=("stop.reply-has-nonce", "stop.workspace-unchanged", "lifecycle.messages-handed-once"),
    signatures=(FailureSignature(check="stop.process-group-gone", pattern=r"^process group \d+ still has members"),),
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


AS_DECLARED = {
    "stop.process-group-gone": "process group 4242 still has members after the product said it was stopped",
    "stop.nothing-ran-after-stop": "ran after Stop, uninvited: run 7f3a (running, cause not stated, 1 delivery(ies))",
}
"""What each finding's check prints when the finding shows."""


def _as_declared(check_id: str) -> str:
    return AS_DECLARED.get(check_id, "")


def failures(*ids: str) -> list[CheckRecord]:
    """Failed check records, each printing what its finding prints."""
    return [CheckRecord(id=i, passed=False, detail=_as_declared(i)) for i in ids]


def record(
    execution_id: str,
    verdict: Verdict,
    failed: tuple[str, ...] = (),
    passed: tuple[str, ...] = (),
    details: dict[str, str] | None = None,
) -> AttemptRecord:
    """An attempt record whose failed checks print ``details`` (check id -> detail), else what the findings print."""
    suite, profile, environment, case = execution_id.split(".")
    return AttemptRecord(
        campaign="c",
        attempt="1-abcd",
        cell=CellIdentity(execution_id=execution_id, suite=suite, profile=profile, environment=environment, case=case),
        verdict=verdict,
        reason="why",
        checks=[CheckRecord(id=c, passed=False, detail=(details or {}).get(c, _as_declared(c))) for c in failed]
        + [CheckRecord(id=c, passed=True) for c in passed],
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
    assert STOP.explains(failures(*sorted(failed))) is explained


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
    unobservable = STOP.model_copy(
        update={
            "checks": ("lifecycle.messages-handed-once",),
            "may_also_fail": (),
            "signatures": (FailureSignature(check="lifecycle.messages-handed-once", pattern="twice"),),
        }
    )
    with pytest.raises(ValidationError, match="not observable here .paperclip does not expose message-read"):
        ProductDeclaration.model_validate({**paperclip.model_dump(), "known_findings": (unobservable,)})
    observable = STOP.model_copy(
        update={
            "checks": ("stop.nothing-ran-after-stop",),
            "may_also_fail": (),
            "signatures": (FailureSignature(check="stop.nothing-ran-after-stop", pattern="uninvited"),),
        }
    )
    assert ProductDeclaration.model_validate({**paperclip.model_dump(), "known_findings": (observable,)})


def test_a_finding_names_exact_checks_never_a_family() -> None:
    with pytest.raises(ValidationError, match="exact, not patterns"):
        STOP.model_copy(update={"may_also_fail": ("stop.*",)}).model_validate(
            {**STOP.model_dump(), "may_also_fail": ("stop.*",)}
        )
    assert not STOP.explains(
        failures("stop.process-group-gone", "stop.run-cancelled")
    )  # not declared: a new regression


def test_an_intermittent_finding_expects_its_failure_or_a_pass_and_nothing_else() -> None:
    racy = STOP.model_copy(update={"intermittent": True})
    assert unexpected(record(PAPERCLIP_STOP.execution_id, Verdict.PASSED), racy) is None
    as_declared = record(PAPERCLIP_STOP.execution_id, Verdict.FAILED, failed=("stop.process-group-gone",))
    assert unexpected(as_declared, racy) is None
    other = record(PAPERCLIP_STOP.execution_id, Verdict.FAILED, failed=("lifecycle.runs-succeeded",))
    assert unexpected(other, racy) is not None
    assert unexpected(record(PAPERCLIP_STOP.execution_id, Verdict.PASSED), STOP) is not None  # a steady one: fixed


def test_a_failure_of_the_findings_check_that_does_not_look_like_it_is_a_new_failure() -> None:
    """By ids alone this failure would be the finding; its detail says it is another defect on the same check."""
    other_way = [CheckRecord(id="stop.process-group-gone", passed=False, detail="the product never said it stopped")]
    assert not STOP.explains(other_way)
    assert STOP.unmatched(other_way) == other_way
    assert STOP.explains(failures("stop.process-group-gone"))
    assert STOP.unmatched(failures("stop.process-group-gone")) == []


def test_a_cell_failing_its_findings_check_in_another_way_ends_the_run_non_zero_naming_the_new_failure() -> None:
    assert PAPERCLIP_STOP.known_finding is not None
    check = PAPERCLIP_STOP.known_finding.checks[0]
    other = record(
        PAPERCLIP_STOP.execution_id,
        Verdict.FAILED,
        failed=(check,),
        details={check: "ran after Stop, uninvited: run 9 (succeeded, cause recovery, 0 delivery(ies))"},
    )
    assert not is_known_finding(other, PAPERCLIP_STOP.known_finding)
    problem = unexpected(other, PAPERCLIP_STOP.known_finding)
    assert problem is not None and "not as its signature says" in problem and "cause recovery" in problem
    assert exit_status([other], [PAPERCLIP_STOP]) == 1


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"signatures": ()}, "at least 1 item"),
        (
            {"signatures": (FailureSignature(check="stop.reply-has-nonce", pattern="x"),)},
            "no signature for its check",
        ),
        (
            {
                "signatures": (
                    FailureSignature(check="stop.process-group-gone", pattern="x"),
                    FailureSignature(check="lifecycle.tasks-done", pattern="x"),
                )
            },
            "signatures of checks it does not declare",
        ),
    ],
)
def test_a_finding_must_sign_each_of_its_checks_and_only_its_own(change: dict[str, object], says: str) -> None:
    with pytest.raises(ValidationError, match=says):
        KnownFinding.model_validate({**STOP.model_dump(), **change})


def test_a_signature_is_a_regular_expression() -> None:
    with pytest.raises(ValidationError, match="not a regular expression"):
        FailureSignature(check="stop.process-group-gone", pattern="(unclosed")


def test_a_signature_reads_the_records_a_failure_names_too() -> None:
    signature = FailureSignature(check="restart.same-run", pattern=r"snapshots/restart\.json")
    named = CheckRecord(id="restart.same-run", passed=False, detail="", evidence=["snapshots/restart.json"])
    assert signature.matches(named)
    assert not signature.matches(named.model_copy(update={"evidence": ["snapshots/stop.json"]}))
    assert not signature.matches(named.model_copy(update={"id": "restart.message-received"}))


def test_a_signature_over_every_problem_refuses_a_detail_that_names_another_problem_beside_the_findings() -> None:
    pattern = every_problem(r"run \d+ ended failed \(process_lost\)", lead="runs: ")
    found = [FailureSignature(check="lifecycle.runs-succeeded", pattern=pattern)]
    as_found = CheckRecord(
        id="lifecycle.runs-succeeded", passed=False, detail="runs: run 1 ended failed (process_lost)"
    )
    both = as_found.model_copy(update={"detail": as_found.detail + "; run 2 ended failed (process_lost)"})
    beside = as_found.model_copy(update={"detail": as_found.detail + "; run 2 ended failed (adapter_failed)"})
    assert unmatched(found, [as_found, both]) == []
    assert unmatched(found, [beside]) == [beside]
