"""How busy the whole machine was over a run, and the wall time no schedule on its cores can beat.

Calibration and the test session both print it: on these shared 2-core
machines a run's wall time says little without the CPU it needed.
"""

from __future__ import annotations

import os
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


class MachineCpu:
    """Started once; ``floor()`` then says the machine's busy time since, and the floor it sets (None without /proc)."""

    def __init__(self) -> None:
        self.started, self.busy_before = time.monotonic(), machine_busy_seconds()

    def floor(self) -> str | None:
        busy_after = machine_busy_seconds()
        if self.busy_before is None or busy_after is None:
            return None
        return cpu_floor(busy_after - self.busy_before, time.monotonic() - self.started)
