"""The metering check: a call the model answered and the product never metered fails it, by name."""

from __future__ import annotations

from harness.checks.metering import CALLS_METERED, calls_metered


def test_every_answered_call_metered_passes_and_one_lost_fails() -> None:
    assert calls_metered(answered=5, metered=5).passed
    lost = calls_metered(answered=5, metered=4)
    assert lost.id == CALLS_METERED == "metering.calls-metered" and not lost.passed
    assert "answered 5 call(s) but the product metered 4: 1 unmetered" in lost.detail


def test_a_call_metered_twice_fails_equality_not_at_least() -> None:
    """Double billing (or billing a call that never reached the model) is spend nobody made."""
    doubled = calls_metered(answered=4, metered=8)
    assert not doubled.passed and "4 metered but never answered" in doubled.detail


def test_a_declared_count_that_is_missing_fails_and_an_undeclared_one_is_recorded_not_observable() -> None:
    """A product that declares metering but whose calls nobody counted has no evidence: never a pass, never absent."""
    unserved = calls_metered(answered=None, metered=3)
    assert unserved.failed and "no evidence" in unserved.detail and "the harness served none" in unserved.detail
    assert calls_metered(answered=3, metered=None).failed
    undeclared = calls_metered(answered=3, metered=None, declared=False)
    assert not undeclared.passed and not undeclared.failed and undeclared.unobservable
