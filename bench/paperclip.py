"""Benchmark: a Paperclip instance's start-up from the prepared template, and what it holds once up.

Each round copies the template into a fresh folder (timed apart), starts the
server and measures until it is ready for runs (healthy and past its startup
sweep), then counts the instance's processes and resident memory. Prints
every round and the median; never asserts a time (the issue's goal is under
5 s from template copy to ready).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from pydantic import BaseModel

from harness.products.paperclip import install
from harness.products.paperclip.instance import PaperclipInstance

GOAL_S = 5.0


class StartUp(BaseModel):
    """One instance start: template copy, server start to ready, and its footprint."""

    copy_s: float
    ready_s: float
    processes: int
    resident_mib: float
    cpu_s: float  # CPU the instance's processes used until ready: the load-independent part of ready_s

    @property
    def total_s(self) -> float:
        return self.copy_s + self.ready_s


def measure() -> StartUp:
    instance = PaperclipInstance()
    try:
        started = time.monotonic()
        instance.prepare()
        copied = time.monotonic() - started
        instance.start()
        processes = instance.processes()
        rss = sum(p.memory_info().rss for p in processes)
        cpu = sum(sum(p.cpu_times()[:4]) for p in processes)
        return StartUp(
            copy_s=copied,
            ready_s=instance.startup_s or 0.0,
            processes=len(processes),
            resident_mib=rss / 2**20,
            cpu_s=cpu,
        )
    finally:
        instance.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.paperclip")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    install.template()
    rounds = []
    for n in range(args.rounds):
        one = measure()
        rounds.append(one)
        print(
            f"paperclip {install.PINNED_VERSION} start-up {n + 1}: template copy {one.copy_s:.2f} s + server to ready "
            f"{one.ready_s:.2f} s = {one.total_s:.2f} s ({one.cpu_s:.1f} CPU s); {one.processes} processes, "
            f"{one.resident_mib:.0f} MiB resident; load average {os.getloadavg()[0]:.1f}"
        )
    median = statistics.median(r.total_s for r in rounds)
    print(
        f"paperclip start-up median {median:.2f} s over {len(rounds)} (goal under {GOAL_S:.0f} s: "
        f"{'met' if median < GOAL_S else 'NOT met'}); max {max(r.total_s for r in rounds):.2f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
