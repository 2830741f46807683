"""The CPU each test of the suite costs, with everything it started: `pytest -p bench.suite_cpu`.

The machine's busy time says what the whole suite needs; it cannot say which
test needed it, since a test's CPU is spread over the browsers, products and
runners it starts beside other workers' tests. Here each xdist worker moves
itself into a cpuacct cgroup of its own before it collects, so every process
it starts is counted there, and each test's figure is the group's CPU
between the start and the end of its run (set-up and teardown included). A
worker runs one test at a time, so nothing of another test is counted.
What no worker starts is counted apart, once for the session: the Docker
engine (dockerd and containerd move into a group of their own, so their
shims and ``runc`` calls count there), the containers it runs, pytest's
controller, and what nothing here counts (the machine's other work).

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

import psutil
import pytest
from pydantic import BaseModel, TypeAdapter

from harness.core.machine_cpu import machine_busy_seconds

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


ENGINE_PROCESSES = ("dockerd", "containerd")
CONTAINERS = "docker"
"""The engine's containers' cgroup (its ``cgroupfs`` driver), beside this module's groups."""


class WorkerGroup:
    """A process's own cgroup (a worker's, the controller's, the engine's): its CPU so far, in seconds. Named with
    this process's id too, so two sessions measured at once on one machine (each with its own ``gw0``) never count
    each other's processes."""

    def __init__(self, name: str, pids: tuple[int, ...] = ()) -> None:
        if V1.is_dir() and os.access(V1, os.W_OK):
            self.root, self.v2 = V1, False
        elif V2.is_dir() and os.access(V2, os.W_OK):
            self.root, self.v2 = V2, True
        else:
            raise pytest.UsageError("bench.suite_cpu needs a writable cpuacct cgroup (cgroup v1 or v2, as root)")
        self.name = name
        self.folder = self.root / GROUP_NAME / f"{name}-{os.getpid()}"
        self.folder.mkdir(parents=True, exist_ok=True)
        for pid in pids or (os.getpid(),):
            (self.folder / "cgroup.procs").write_text(str(pid))

    def usage(self, folder: Path | None = None) -> float:
        """CPU-s so far of this group, or of another ``folder`` of the same hierarchy."""
        folder = folder or self.folder
        if not self.v2:
            return int((folder / "cpuacct.usage").read_text()) / 1e9
        stat = dict(line.split() for line in (folder / "cpu.stat").read_text().splitlines())
        return int(stat["usage_usec"]) / 1e6

    def containers_usage(self) -> float:
        """The engine's containers' CPU so far (0 where the engine keeps them elsewhere)."""
        folder = self.root / CONTAINERS
        return self.usage(folder) if folder.is_dir() else 0.0


class Session(BaseModel):
    """CPU-s of the whole session that no test's group counts."""

    machine_s: float
    wall_s: float
    controller_s: float
    engine_s: float
    containers_s: float


class SessionGroups:
    """The controller's and the engine's groups, and the machine's busy time, from the session's start."""

    def __init__(self) -> None:
        engine = tuple(p.pid for p in psutil.process_iter(["name"]) if p.info["name"] in ENGINE_PROCESSES)
        self.controller = WorkerGroup("controller")
        self.engine = WorkerGroup("engine", engine) if engine else None
        self.started = self.now()

    def now(self) -> Session:
        return Session(
            machine_s=machine_busy_seconds() or 0.0,
            wall_s=time.monotonic(),
            controller_s=self.controller.usage(),
            engine_s=self.engine.usage() if self.engine else 0.0,
            containers_s=self.controller.containers_usage(),
        )

    def spent(self) -> Session:
        now, then = self.now(), self.started
        return Session(**{field: getattr(now, field) - getattr(then, field) for field in Session.model_fields})


SESSION_FILE = "session.json"
_group: WorkerGroup | None = None
_session: SessionGroups | None = None
_costs: dict[str, Spent] = {}


def pytest_configure(config: pytest.Config) -> None:
    global _group, _session
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker or not getattr(config.option, "numprocesses", None):
        _group = WorkerGroup(worker or "main")
    if not worker:
        _session = SessionGroups()


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
    out = Path(os.environ.get(OUT_ENV, DEFAULT_OUT))
    out.mkdir(parents=True, exist_ok=True)
    if _group is not None:
        (out / f"{_group.name}.json").write_bytes(_COSTS.dump_json(_costs))
    if _session is not None:
        (out / SESSION_FILE).write_text(_session.spent().model_dump_json())


def read(folder: Path) -> dict[str, Spent]:
    """Every worker's costs in ``folder``, by test id."""
    costs: dict[str, Spent] = {}
    for path in sorted(folder.glob("*.json")):
        if path.name != SESSION_FILE:
            costs.update(_COSTS.validate_json(path.read_bytes()))
    return costs


def session_lines(folder: Path, counted_s: float) -> list[str]:
    """The session's machine CPU, split into the tests', the engine's, the controller's and the rest."""
    path = folder / SESSION_FILE
    if not path.is_file():
        return []
    spent = Session.model_validate_json(path.read_text())
    rest = spent.machine_s - counted_s - spent.engine_s - spent.containers_s - spent.controller_s
    return [
        f"machine {spent.machine_s:.0f} CPU-s busy over {spent.wall_s:.0f} s: tests {counted_s:.0f}, "
        f"engine {spent.engine_s:.0f}, containers {spent.containers_s:.0f}, controller {spent.controller_s:.0f}, "
        f"counted nowhere {rest:.0f}"
    ]


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
    lines = summary(costs, args.top)
    print("\n".join(lines[:1] + session_lines(args.folder, sum(c.cpu_s for c in costs.values())) + lines[1:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
