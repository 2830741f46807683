"""The CPU each test of the suite costs, with everything it started: `pytest -p bench.suite_cpu`.

The machine's busy time says what the whole suite needs; it cannot say which
test needed it, since a test's CPU is spread over the browsers, products and
runners it starts beside other workers' tests. Here each xdist worker moves
itself into a cpuacct cgroup of its own before it collects, so every process
it starts is counted there, and each test's figure is the group's CPU
between the start and the end of its run (set-up and teardown included). A
worker runs one test at a time, so nothing of another test is counted.
What no worker starts (the Docker engine and the oracle's containers, the
controller process) is counted under no test.

    python -m pytest -p bench.suite_cpu -n 4 --dist worksteal   # writes SUITE_CPU_OUT (a folder)
    python -m bench.suite_cpu [folder] [--top N]                  # CPU-s by file, then the costliest tests

Linux only, as root: it needs a writable cgroup v1 ``cpuacct`` hierarchy or
cgroup v2's unified one, and refuses to start without it.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import defaultdict
from collections.abc import Generator
from pathlib import Path

import pytest
from pydantic import BaseModel, TypeAdapter

OUT_ENV = "SUITE_CPU_OUT"
DEFAULT_OUT = Path("/tmp/suite-cpu")
GROUP_NAME = "everyday-evals-suite-cpu"
V1 = Path("/sys/fs/cgroup/cpuacct")
V2 = Path("/sys/fs/cgroup/unified")


class Spent(BaseModel):
    """One test's CPU-s (user + system of the worker's whole group) and wall seconds."""

    cpu_s: float
    wall_s: float


_COSTS = TypeAdapter(dict[str, Spent])


class WorkerGroup:
    """A worker's own cgroup: its CPU so far, in seconds."""

    def __init__(self, worker: str) -> None:
        worker = f"{worker}-{os.getppid()}"  # the session's own: another session's worker of that name is not counted
        if V1.is_dir() and os.access(V1, os.W_OK):
            self.folder, self.usage = V1 / GROUP_NAME / worker, self._v1_usage
        elif V2.is_dir() and os.access(V2, os.W_OK):
            self.folder, self.usage = V2 / GROUP_NAME / worker, self._v2_usage
        else:
            raise pytest.UsageError("bench.suite_cpu needs a writable cpuacct cgroup (cgroup v1 or v2, as root)")
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / "cgroup.procs").write_text(str(os.getpid()))

    def _v1_usage(self) -> float:
        return int((self.folder / "cpuacct.usage").read_text()) / 1e9

    def _v2_usage(self) -> float:
        stat = dict(line.split() for line in (self.folder / "cpu.stat").read_text().splitlines())
        return int(stat["usage_usec"]) / 1e6


_group: WorkerGroup | None = None
_costs: dict[str, Spent] = {}


def pytest_configure(config: pytest.Config) -> None:
    global _group
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker or not getattr(config.option, "numprocesses", None):
        _group = WorkerGroup(worker or "main")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, object, object]:
    if _group is None:
        return (yield)
    cpu, started = _group.usage(), time.monotonic()
    try:
        return (yield)
    finally:
        _costs[item.nodeid] = Spent(cpu_s=_group.usage() - cpu, wall_s=time.monotonic() - started)


def pytest_unconfigure(config: pytest.Config) -> None:
    if _group is not None:
        out = Path(os.environ.get(OUT_ENV, DEFAULT_OUT))
        out.mkdir(parents=True, exist_ok=True)
        (out / f"{_group.folder.name}.json").write_bytes(_COSTS.dump_json(_costs))


def read(folder: Path) -> dict[str, Spent]:
    """Every worker's costs in ``folder``, by test id."""
    costs: dict[str, Spent] = {}
    for path in sorted(folder.glob("*.json")):
        costs.update(_COSTS.validate_json(path.read_bytes()))
    return costs


def summary(costs: dict[str, Spent], top: int) -> list[str]:
    """CPU-s and wall seconds by file, costliest first, then the ``top`` costliest tests."""
    by_file: dict[str, list[Spent]] = defaultdict(list)
    for test_id, cost in costs.items():
        by_file[test_id.split("::")[0]].append(cost)
    total = sum(cost.cpu_s for cost in costs.values())
    lines = [f"{len(costs)} tests, {total:.0f} CPU-s counted under them", "  CPU-s  wall-s tests  file"]
    for file, file_costs in sorted(by_file.items(), key=lambda kv: -sum(c.cpu_s for c in kv[1])):
        cpu, wall = sum(c.cpu_s for c in file_costs), sum(c.wall_s for c in file_costs)
        lines.append(f"{cpu:7.1f} {wall:7.1f} {len(file_costs):5d}  {file}")
    lines.append("  CPU-s  wall-s  test")
    for test_id, cost in sorted(costs.items(), key=lambda kv: -kv[1].cpu_s)[:top]:
        lines.append(f"{cost.cpu_s:7.1f} {cost.wall_s:7.1f}  {test_id}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.suite_cpu", description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=Path(os.environ.get(OUT_ENV, DEFAULT_OUT)))
    parser.add_argument("--top", type=int, default=30, help="how many of the costliest tests to list")
    args = parser.parse_args(argv)
    costs = read(args.folder)
    if not costs:
        print(f"bench.suite_cpu: no figures in {args.folder}: run pytest -p bench.suite_cpu first", file=sys.stderr)
        return 2
    print("\n".join(summary(costs, args.top)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
