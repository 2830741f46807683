"""A package's kept facts against its driver's declaration: a declared fact no record carries, and an undeclared
one carried as the product's, are both named; one the driver says it works out itself is kept as derived."""

from __future__ import annotations

from calibration.lifecycle_records import healthy
from harness.checks.observed_facts import conformance_gaps, observed_facts
from harness.core.observable import FACTS

EXERCISED = ("message-read", "message-wakes", "runner-identity", "receipts", "run-cause")


def test_records_that_carry_what_is_declared_and_nothing_else_conform() -> None:
    facts = healthy()
    facts.observes = ["message-read", "runner-identity", "receipts", "run-cause"]
    kept = observed_facts(facts, {})
    assert [o.fact for o in kept] == list(FACTS)
    read = next(o for o in kept if o.fact == "message-read")
    assert (read.provenance, read.carried_by) == ("product", ["message 50"])
    assert conformance_gaps(kept, EXERCISED) == []


def test_a_declared_fact_the_records_lack_is_named() -> None:
    facts = healthy()
    facts.observes = ["message-read", "runner-identity", "receipts", "run-cause"]
    for run in facts.runs:
        run.received_message_ids = None
    [gap] = conformance_gaps(observed_facts(facts, {}), EXERCISED)
    assert gap.startswith("receipts is declared, yet no record carries it")


def test_an_undeclared_fact_carried_as_the_products_is_named_unless_the_driver_says_it_works_it_out() -> None:
    facts = healthy()
    facts.observes = ["runner-identity", "receipts", "run-cause"]  # message-read left out, yet carried
    [gap] = conformance_gaps(observed_facts(facts, {}), EXERCISED)
    assert gap.startswith("message-read is not declared, yet message 50 carry it as the product's")
    derived = observed_facts(facts, {"message-read": "the first run that received it"})
    read = next(o for o in derived if o.fact == "message-read")
    assert read.provenance == "derived" and "worked out by the driver: the first run that received it" in read.source
    assert conformance_gaps(derived, EXERCISED) == []
