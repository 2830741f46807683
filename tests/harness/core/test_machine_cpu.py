"""The machine's busy time and the floor it sets on a run's wall time (printed by calibration and by the test session)."""

from __future__ import annotations

import time

from harness.core.machine_cpu import MachineCpu, busy_profile, cpu_floor, machine_busy_seconds


def burn() -> None:
    sum(i * i for i in range(3_000_000))


def test_the_cpu_floor_is_the_busy_time_shared_over_the_cores() -> None:
    assert cpu_floor(820.0, 600.0, cores=2) == (
        "machine CPU: 820 s busy over 600 s wall (1.4 of 2 cores);"
        " on 2 cores no schedule of this work finishes in under 410 s"
    )


def test_the_machine_busy_time_grows_while_the_machine_works() -> None:
    before = machine_busy_seconds()
    assert before is not None  # Linux: /proc/stat is there
    burn()
    after = machine_busy_seconds()
    assert after is not None and after > before


def test_a_run_says_the_busy_time_since_it_started() -> None:
    machine = MachineCpu()
    burn()
    floor = machine.floor()
    assert floor is not None and floor.startswith("machine CPU: ") and "no schedule of this work" in floor


def test_the_profile_says_how_busy_the_cores_were_in_each_stretch() -> None:
    readings = [(0.0, 100.0), (60.0, 220.0), (120.0, 250.0), (120.0, 250.0), (150.0, 310.0)]
    assert busy_profile(readings) == "cores busy, stretch by stretch: 2.0 0.5 2.0"


def test_a_sampling_run_profiles_its_stretches_and_stops_reading() -> None:
    machine = MachineCpu(every_s=0.05)
    burn()
    time.sleep(0.2)
    profile = machine.profile()
    assert profile is not None and profile.startswith("cores busy, stretch by stretch: ")
    shares = profile.rsplit(": ", 1)[1].split()
    assert len(shares) >= 2 and all(float(share) >= 0 for share in shares)
    assert MachineCpu().profile() is None  # no interval: nothing read
