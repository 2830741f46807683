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
    node_cpu_s: float  # of which the server's node process (the rest is Postgres)
    milestones: dict[str, float]  # seconds from launch to each milestone (PaperclipInstance.startup_milestones)

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
        node_cpu = sum(
            sum(p.cpu_times()[:2]) for p in processes if p.pid == (instance.process and instance.process.pid)
        )
        return StartUp(
            copy_s=copied,
            ready_s=instance.startup_s or 0.0,
            processes=len(processes),
            resident_mib=rss / 2**20,
            cpu_s=cpu,
            node_cpu_s=node_cpu,
            milestones=instance.startup_milestones,
        )
    finally:
        instance.close()


def parts(one: StartUp) -> dict[str, float]:
    """Seconds from each milestone to the next (launch first, ready last): which part of the start-up dominates."""
    marks = [("launch", 0.0), *one.milestones.items(), ("ready", one.ready_s)]
    return {name: at - before for (_, before), (name, at) in zip(marks, marks[1:], strict=False)}


def phases(shares: dict[str, float]) -> str:
    return ", ".join(f"{name} {seconds:.2f} s" for name, seconds in shares.items())


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
        print(f"  to each milestone: {phases(parts(one))}; node used {one.node_cpu_s:.1f} of the {one.cpu_s:.1f} CPU s")
    median = statistics.median(r.total_s for r in rounds)
    shares = [parts(r) for r in rounds]
    common = [name for name in shares[0] if all(name in share for share in shares)]
    print(
        f"paperclip start-up median to each milestone: {phases({n: statistics.median(s[n] for s in shares) for n in common})}"
    )
    print(
        f"paperclip start-up median {median:.2f} s over {len(rounds)} (goal under {GOAL_S:.0f} s: "
        f"{'met' if median < GOAL_S else 'NOT met'}); max {max(r.total_s for r in rounds):.2f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
