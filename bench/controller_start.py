"""Benchmark: starting a testbed controller forked from the pre-imported forkserver, against a fresh interpreter.

Every cell and every restart fault starts a controller, so its start-up is
paid about 170 times a calibration run. Each repetition starts one controller
each way, alternately, and times it from the start until its health route
answers: wall time, and the CPU the controller process used to get there.
The fresh interpreter (`python -m harness.testbed serve`, as the harness started it
before) is the baseline measured in the same run. Prints medians and ratios;
never asserts a time.
"""

from __future__ import annotations

import argparse
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import psutil

from bench.arguments import count
from bench.entry import run_benchmark
from harness.products.processes import free_port, stop_process
from harness.products.testbed import TestbedInstance


def _answering(port: int, process: psutil.Process) -> float:
    """Wait for the health route; the CPU-s the controller used until then."""
    with httpx.Client(base_url=f"http://127.0.0.1:{port}") as client:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if client.get("/api/health", timeout=1).status_code == 200:
                    times = process.cpu_times()
                    return times.user + times.system
            except httpx.TransportError:
                time.sleep(0.01)
        raise RuntimeError(f"controller on port {port} did not answer in 30 s")


def fresh_start(folder: Path) -> tuple[float, float]:
    """`python -m harness.testbed serve` as a new interpreter: (wall s, CPU s) until it answers."""
    port = free_port()
    started = time.monotonic()
    command = [sys.executable, "-m", "harness.testbed", "serve", "--data", str(folder), "--port", str(port)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        cpu = _answering(port, psutil.Process(process.pid))
        return time.monotonic() - started, cpu
    finally:
        stop_process(process, signal.SIGTERM, 10, "fresh controller")


def forked_start(folder: Path) -> tuple[float, float]:
    """The harness's own start (a fork of the forkserver): (wall s, CPU s) until it answers."""
    started = time.monotonic()
    with TestbedInstance(data_dir=folder) as instance:
        assert instance.controller_pid is not None
        cpu = _answering(instance.port, psutil.Process(instance.controller_pid))
        return time.monotonic() - started, cpu


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.controller_start", description=__doc__)
    parser.add_argument("--repetitions", type=count, default=10, help="starts each way (after one of each to warm up)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-controller-") as root:
        folders = (Path(root) / f"data-{n}" for n in range(2 * args.repetitions + 2))
        first_wall, _ = forked_start(next(folders))  # spawns the forkserver: paid once per harness process
        fresh_start(next(folders))
        fresh, forked = [], []
        for _ in range(args.repetitions):
            fresh.append(fresh_start(next(folders)))
            forked.append(forked_start(next(folders)))
    print(f"testbed controller start, until it answers: {args.repetitions} starts each way, medians")
    print(f"{'':<34} {'wall':>8} {'controller CPU':>15}")
    for label, rows in (("fresh interpreter (baseline)", fresh), ("forked from the forkserver", forked)):
        wall, cpu = (statistics.median(column) for column in zip(*rows, strict=True))
        print(f"{label:<34} {wall:>6.3f} s {cpu:>13.3f} s")
    ratio_wall = statistics.median(w for w, _ in forked) / statistics.median(w for w, _ in fresh)
    ratio_cpu = statistics.median(c for _, c in forked) / statistics.median(c for _, c in fresh)
    print(f"forked / fresh: wall {ratio_wall:.2f}x, controller CPU {ratio_cpu:.2f}x")
    print(f"first forked start of a harness process (spawns the forkserver): {first_wall:.3f} s")


if __name__ == "__main__":
    sys.exit(run_benchmark(main))
