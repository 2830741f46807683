"""One poll loop: quick looks while a state may come any moment, patient ones once it has kept the product busy."""

from __future__ import annotations

import pytest

from harness.core import waiting
from harness.core.waiting import PATIENT_AFTER_S, PATIENT_INTERVAL_S, WaitTimeout, wait_for


class Clock:
    """Stands in for time.monotonic and time.sleep: a sleep moves the clock and is remembered."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.pauses: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.pauses.append(seconds)
        self.now += seconds


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(waiting.time, "monotonic", fake.monotonic)
    monkeypatch.setattr(waiting.time, "sleep", fake.sleep)
    return fake


def test_a_long_wait_looks_quickly_first_then_patiently_and_its_last_look_is_at_the_deadline(clock: Clock) -> None:
    with pytest.raises(WaitTimeout, match="timed out after 30 s waiting for the build"):
        wait_for(lambda: None, timeout=30.0, what="the build")
    quick = [p for p in clock.pauses if p == 0.1]
    patient = [p for p in clock.pauses if p == PATIENT_INTERVAL_S]
    assert len(quick) == pytest.approx(PATIENT_AFTER_S / 0.1, abs=1)
    assert len(patient) == pytest.approx((30.0 - PATIENT_AFTER_S) / PATIENT_INTERVAL_S, abs=1)
    assert clock.now - 1000.0 <= 30.0 + 0.02  # no pause runs past the deadline


def test_a_state_that_comes_is_returned_at_the_first_look_that_sees_it(clock: Clock) -> None:
    looks = iter([None, None, "done"])
    assert wait_for(lambda: next(looks), timeout=5.0) == "done"
    assert clock.pauses == [0.1, 0.1]


def test_a_caller_asking_for_slower_looks_keeps_its_own_interval(clock: Clock) -> None:
    with pytest.raises(WaitTimeout):
        wait_for(lambda: None, timeout=20.0, interval=2.0)
    assert set(clock.pauses[:-1]) == {2.0}
