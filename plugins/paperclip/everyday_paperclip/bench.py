"""Benchmark: a Paperclip instance's start-up from the prepared template, and what it holds once up.

Each round copies the template into a fresh folder (timed apart), starts the
server and measures until it is ready for runs (healthy and past its startup
sweep), then counts the instance's processes and resident memory. Prints
every round and the median; never asserts a time (the issue's goal is under
5 s from template copy to ready).

Start-up is CPU-bound, so its wall time depends on how busy the machine is.
Each round therefore also splits the server main thread's time to ready, from
the kernel's scheduler accounting (``/proc/PID/task/PID/schedstat``), into
time on a CPU, time runnable but waiting for a core that other processes held,
and the rest: blocked (on Postgres, the disk, a timer or the network). That
split tells a slow start on a busy machine from a start that waits on
something.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from bench.arguments import count
from bench.entry import run_benchmark
from everyday_paperclip import install
from everyday_paperclip.instance import PaperclipInstance

GOAL_S = 5.0


class StartUp(BaseModel):
    """One instance start: template copy, server start to ready, and its footprint."""

    copy_s: float
    ready_s: float
    processes: int
    resident_mib: float
    cpu_s: float  # CPU the instance's processes used until ready: the load-independent part of ready_s
    node_cpu_s: float  # of which the server's node process, all its threads (the rest is Postgres)
    main_cpu_s: float  # of which the server's main thread (the rest of node_cpu_s is V8's and libuv's helper threads)
    main_waiting_s: float  # the main thread runnable but waiting for a core that other processes held
    load_average: float  # one-minute load average when the round ended
    milestones: dict[str, float]  # seconds from launch to each milestone (PaperclipInstance.startup_milestones)

    @property
    def total_s(self) -> float:
        return self.copy_s + self.ready_s

    @property
    def main_blocked_s(self) -> float:
        """The main thread neither running nor runnable until ready: waiting on Postgres, the disk, timers, network."""
        return max(0.0, self.ready_s - self.main_cpu_s - self.main_waiting_s)


def scheduler_times(pid: int) -> tuple[float, float]:
    """Seconds the process's main thread has run on a CPU and has waited, runnable, for one (Linux schedstat)."""
    on_cpu_ns, waiting_ns, _ = (Path("/proc") / str(pid) / "task" / str(pid) / "schedstat").read_text().split()
    return int(on_cpu_ns) / 1e9, int(waiting_ns) / 1e9


def measure() -> StartUp:
    instance = PaperclipInstance(create_company=False)  # start() returns at ready, when the split is read
    try:
        started = time.monotonic()
        instance.prepare()
        copied = time.monotonic() - started
        instance.start()
        assert instance.process is not None
        server = instance.process.pid
        main_cpu, main_waiting = scheduler_times(server)
        processes = instance.processes()
        rss = sum(p.memory_info().rss for p in processes)
        cpu = sum(sum(p.cpu_times()[:4]) for p in processes)
        node_cpu = sum(sum(p.cpu_times()[:2]) for p in processes if p.pid == server)
        return StartUp(
            copy_s=copied,
            ready_s=instance.startup_s or 0.0,
            processes=len(processes),
            resident_mib=rss / 2**20,
            cpu_s=cpu,
            node_cpu_s=node_cpu,
            main_cpu_s=main_cpu,
            main_waiting_s=main_waiting,
            load_average=os.getloadavg()[0],
            milestones=instance.startup_milestones,
        )
    finally:
        instance.close()


def parts(one: StartUp) -> dict[str, float]:
    """Seconds from each milestone to the next, in the order they came (the last one is ready): what dominates."""
    marks = [("launch", 0.0), *one.milestones.items()]
    return {name: at - before for (_, before), (name, at) in zip(marks, marks[1:], strict=False)}


def phases(shares: dict[str, float]) -> str:
    return ", ".join(f"{name} {seconds:.2f} s" for name, seconds in shares.items())


def split(on_cpu: float, waiting: float, blocked: float) -> str:
    return f"server main thread on a CPU {on_cpu:.2f} s, waiting for a core {waiting:.2f} s, blocked {blocked:.2f} s"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m everyday_paperclip.bench")
    parser.add_argument("--rounds", type=count, default=5)
    args = parser.parse_args(argv)
    install.template()
    rounds = []
    for n in range(args.rounds):
        one = measure()
        rounds.append(one)
        print(
            f"paperclip {install.PINNED_VERSION} start-up {n + 1}: template copy {one.copy_s:.2f} s + server to ready "
            f"{one.ready_s:.2f} s = {one.total_s:.2f} s ({one.cpu_s:.1f} CPU s); {one.processes} processes, "
            f"{one.resident_mib:.0f} MiB resident; load average {one.load_average:.1f} on {os.cpu_count()} cores"
        )
        helpers, postgres = one.node_cpu_s - one.main_cpu_s, one.cpu_s - one.node_cpu_s
        print(
            f"  {split(one.main_cpu_s, one.main_waiting_s, one.main_blocked_s)}; "
            f"node's other threads {helpers:.2f} CPU s, Postgres {postgres:.2f} CPU s"
        )
        print(f"  to each milestone: {phases(parts(one))}")
    median = statistics.median(r.total_s for r in rounds)
    # Milestones can come in another order from round to round (the sweep's log line and /api/health race), so the
    # median is taken of each one's time from launch, not of the intervals between them.
    common = [name for name in rounds[0].milestones if all(name in r.milestones for r in rounds)]
    from_launch = {name: statistics.median(r.milestones[name] for r in rounds) for name in common}
    print(
        f"paperclip start-up median time from launch: {phases(dict(sorted(from_launch.items(), key=lambda m: m[1])))}"
    )

    def middle(value: Callable[[StartUp], float]) -> float:
        return statistics.median(value(r) for r in rounds)

    print(
        "paperclip start-up median split: "
        f"{split(middle(lambda r: r.main_cpu_s), middle(lambda r: r.main_waiting_s), middle(lambda r: r.main_blocked_s))}"
        f" (load average {middle(lambda r: r.load_average):.1f} on {os.cpu_count()} cores); "
        f"median less the wait for a core {middle(lambda r: r.total_s - r.main_waiting_s):.2f} s"
    )
    print(
        f"paperclip start-up median {median:.2f} s over {len(rounds)} (goal under {GOAL_S:.0f} s: "
        f"{'met' if median < GOAL_S else 'NOT met'}); max {max(r.total_s for r in rounds):.2f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(run_benchmark(main))
