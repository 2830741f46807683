"""How busy the whole machine was over a run, and the wall time no schedule on its cores can beat.

Calibration and the test session both print it: on these shared 2-core
machines a run's wall time says little without the CPU it needed.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path


def machine_busy_seconds() -> float | None:
    """CPU seconds every core of the machine has spent busy since boot (None where /proc/stat is missing).

    Machine-wide on purpose: a story cell's CPU is spread over the harness,
    the product's controller and runners, Chromium and the Docker engine,
    most of which are not the caller's children.
    """
    try:
        fields = Path("/proc/stat").read_text().splitlines()[0].split()
    except OSError:
        return None
    user, nice, system, _idle, _iowait, irq, softirq = (int(v) for v in fields[1:8])
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def cpu_floor(busy_seconds: float, wall_seconds: float, cores: int | None = None) -> str:
    """How much of the wall time the machine's cores bound: no schedule on these cores can finish below busy/cores."""
    cores = cores or os.cpu_count() or 1
    return (
        f"machine CPU: {busy_seconds:.0f} s busy over {wall_seconds:.0f} s wall ({busy_seconds / wall_seconds:.1f} of"
        f" {cores} cores); on {cores} cores no schedule of this work finishes in under {busy_seconds / cores:.0f} s"
    )


def busy_profile(readings: list[tuple[float, float]]) -> str:
    """The cores kept busy in each stretch between consecutive ``(monotonic time, busy seconds)`` readings.

    Where the machine idled (the session's start, a stretch of tests that mostly wait, the last tests alone)
    is what decides whether a faster schedule or less CPU would shorten the run.
    """
    shares = [
        f"{(busy - busy_before) / (at - at_before):.1f}"
        for (at_before, busy_before), (at, busy) in zip(readings, readings[1:], strict=False)
        if at > at_before
    ]
    return "cores busy, stretch by stretch: " + " ".join(shares)


class MachineCpu:
    """Started once; ``floor()`` then says the machine's busy time since, and the floor it sets (None without /proc).

    With ``every_s``, a daemon thread also reads the busy time at that interval, and ``profile()`` says how busy
    the cores were in each stretch.
    """

    def __init__(self, every_s: float | None = None) -> None:
        self.started, self.busy_before = time.monotonic(), machine_busy_seconds()
        self._readings: list[tuple[float, float]] = []
        self._stop = threading.Event()
        if every_s and self.busy_before is not None:
            self._readings.append((self.started, self.busy_before))
            threading.Thread(target=self._read_every, args=(every_s,), name="machine-cpu", daemon=True).start()

    def _read_every(self, every_s: float) -> None:
        while not self._stop.wait(every_s):
            busy = machine_busy_seconds()
            if busy is not None:
                self._readings.append((time.monotonic(), busy))

    def profile(self) -> str | None:
        """The cores busy in each stretch so far, the last one ending now (None without readings)."""
        busy = machine_busy_seconds()
        if not self._readings or busy is None:
            return None
        self._stop.set()
        return busy_profile([*self._readings, (time.monotonic(), busy)])

    def floor(self) -> str | None:
        busy_after = machine_busy_seconds()
        if self.busy_before is None or busy_after is None:
            return None
        return cpu_floor(busy_after - self.busy_before, time.monotonic() - self.started)
