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
