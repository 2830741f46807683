"""The metering check: a call the model answered and the product never metered fails it, by name."""

from __future__ import annotations

from harness.checks.metering import CALLS_METERED, calls_metered


def test_every_answered_call_metered_passes_and_one_lost_fails() -> None:
    assert calls_metered(answered=5, metered=5).passed
    lost = calls_metered(answered=5, metered=4)
    assert lost.id == CALLS_METERED == "metering.calls-metered" and not lost.passed
    assert "answered 5 call(s) but the product metered 4: 1 unmetered" in lost.detail


def test_a_call_metered_that_never_left_is_no_failure() -> None:
    """Admitted, then the runner killed by a Stop before forwarding it: charged its estimate, never lost."""
    assert calls_metered(answered=4, metered=5).passed
