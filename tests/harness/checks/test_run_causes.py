"""lifecycle.runs-have-a-cause: each stated cause must hold in the records; an unsaid cause is never a failure."""

from __future__ import annotations

from calibration.lifecycle_records import LEAD, MATE, executed, healthy
from harness.checks.lifecycle import MessageFacts, runs_have_a_cause


def test_a_healthy_delegation_is_explained() -> None:
    check = runs_have_a_cause(healthy())
    assert check.passed and not check.failed, check.detail


def test_a_product_that_says_no_cause_leaves_the_check_not_observable() -> None:
    facts = healthy()
    for run in facts.runs:
        run.cause = None
    check = runs_have_a_cause(facts)
    assert not check.passed and not check.failed and check.unobservable


def test_a_run_without_a_stated_cause_is_not_judged_beside_explained_ones() -> None:
    facts = healthy()
    facts.runs.append(executed("102", "11", MATE, ended=14))
    check = runs_have_a_cause(facts)
    assert check.passed and "1 without one not judged" in check.detail


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


def test_a_resumption_holds_only_after_a_run_its_budget_paused() -> None:
    facts = healthy()
    facts.runs.append(executed("103", "11", MATE, ended=15, cause="resumed"))
    assert runs_have_a_cause(facts).failed
    facts = healthy()
    facts.runs.append(
        executed("102", "11", MATE, ended=14, status="cancelled", error="budget_paused", cause="user_message")
    )
    facts.runs.append(executed("103", "11", MATE, ended=15, cause="resumed"))
    facts.messages.append(MessageFacts(id="51", task_id="11", body="more", woke_run_ids=["102"]))
    check = runs_have_a_cause(facts)
    assert check.passed, check.detail
