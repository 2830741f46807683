"""lifecycle.runs-have-a-cause: each stated cause must hold in the records; a cause unsaid where the product declares\nrun causes is a declared fact missing, a failure."""

from __future__ import annotations

import pytest

from calibration.lifecycle_records import LEAD, MATE, executed, healthy
from harness.checks.lifecycle import MessageFacts, runs_have_a_cause


def test_a_healthy_delegation_is_explained() -> None:
    check = runs_have_a_cause(healthy())
    assert check.passed and not check.failed, check.detail


def test_a_product_that_declares_causes_yet_says_none_fails_naming_each_run() -> None:
    facts = healthy()
    for run in facts.runs:
        run.cause = None
    check = runs_have_a_cause(facts)
    assert check.failed and check.unobservable is None
    assert all(f"the product declared run-cause; run {run.id} on task" in check.detail for run in facts.runs)


def test_a_run_without_a_stated_cause_fails_beside_explained_ones() -> None:
    facts = healthy()
    facts.runs.append(executed("102", "11", MATE, ended=14, cause=None))
    check = runs_have_a_cause(facts)
    assert check.failed and check.detail == "the product declared run-cause; run 102 on task 11 has none"


def test_a_recovery_after_a_failed_run_and_a_run_for_a_message_it_got_are_explained() -> None:
    facts = healthy()
    facts.runs.append(
        executed("102", "11", MATE, ended=14, status="failed", error="process_lost", cause="user_message")
    )
    facts.runs.append(executed("103", "11", MATE, ended=15, cause="recovery"))
    facts.messages.append(MessageFacts(id="51", task_id="11", body="more", woke_run_ids=["102"]))
    check = runs_have_a_cause(facts)
    assert check.passed, check.detail


def test_an_unexplained_run_fails_with_its_id_and_what_it_did() -> None:
    facts = healthy()
    facts.runs.append(executed("102", "10", LEAD, ended=22, cause="assignment"))
    check = runs_have_a_cause(facts)
    assert check.failed
    assert "run 102 on task 10 (succeeded, delivered nothing, cause assignment)" in check.detail
    assert "already done the task (run 100)" in check.detail


def test_a_cause_outside_the_vocabulary_is_unexplained() -> None:
    facts = healthy()
    facts.runs[0].cause = "timer"
    assert "'timer', which is none of the causes" in runs_have_a_cause(facts).detail


@pytest.mark.parametrize("pause", ["budget_paused", "paused_by_user"])
def test_a_resumption_holds_only_after_a_run_a_pause_cut_short(pause: str) -> None:
    """A budget that ran out, or the person pausing the agent: either pause explains the run its resume starts;
    a run cancelled for anything else does not."""
    facts = healthy()
    facts.runs.append(executed("103", "11", MATE, ended=15, cause="resumed"))
    assert runs_have_a_cause(facts).failed
    for error, explained in ((pause, True), ("stopped_by_user", False)):
        facts = healthy()
        facts.runs.append(executed("102", "11", MATE, ended=14, status="cancelled", error=error, cause="user_message"))
        facts.runs.append(executed("103", "11", MATE, ended=15, cause="resumed"))
        facts.messages.append(MessageFacts(id="51", task_id="11", body="more", woke_run_ids=["102"]))
        check = runs_have_a_cause(facts)
        assert check.passed is explained, check.detail
