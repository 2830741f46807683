"""Where a run's CPU went, by kind of process: the browser, the product, the engine, the harness.

The machine's busy time says how much CPU a run needed, not who needed it:
a story cell's CPU is spread over Chromium's processes, Playwright's driver,
the product's controller and runners, the Docker engine and the harness's
own workers, most of which are not the caller's children. So every process
on the machine is sampled while the run goes on, each is filed under the
kind its command line names, and its CPU since the run started is summed.

A process is seen at most every ``SAMPLE_S``: what one did after its last
sample (a short-lived ``runc`` may never be sampled) is not filed, and is
shown as what no sample saw, beside the kernel's own work.
"""

from __future__ import annotations

import os
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import TracebackType

import psutil
from pydantic import BaseModel

from harness.agents.registry import registered
from harness.core.machine_cpu import machine_busy_seconds

SAMPLE_S = 0.5


def _has(*parts: str) -> Callable[[str], bool]:
    return lambda command: any(part in command for part in parts)


KINDS: tuple[tuple[str, Callable[[str], bool]], ...] = (
    ("Chromium", _has("chromium", "chrome", "headless_shell")),
    ("Playwright's driver (node)", _has("playwright")),
    ("product runners", _has("harness.testbed.runner")),
    ("agent CLIs", _has(*(name for cli in registered().values() for name in cli.processes))),
    ("product controllers", _has("testbed", "paperclip")),
    ("harness cell workers", _has("harness.running.cell_worker")),
    ("Docker engine", _has("dockerd", "containerd", "runc", "docker-")),
    ("harness, oracle and calibration", _has("calibration", "harness", "oracle", "pytest")),
)
"""First match wins, on the program's name and the start of the next three words: later ones name
folders (an agent CLI's workspace is under the product's data folder). A controller forked from the harness's
forkserver keeps the forkserver's command, whose code names ``testbed`` in its first words."""
CONTAINERS = "oracle containers"
SAMPLER = "this benchmark's sampling"
OTHER = "other processes"


def kind_of(command: Sequence[str], name: str = "") -> str:
    """The kind a process is filed under, from its command line (or its name when it shows none)."""
    words = [os.path.basename(command[0]), *command[1:4]] if command else [name]  # not the folder it runs from
    text = " ".join(word[:120] for word in words)
    return next((kind for kind, matches in KINDS if matches(text)), OTHER)


def _in_a_container(pid: int) -> bool:
    """A process the Docker engine started: its control group names docker."""
    try:
        with open(f"/proc/{pid}/cgroup") as groups:
            return "docker" in groups.read()
    except OSError:
        return False


class CpuShare(BaseModel):
    kind: str
    cpu_s: float
    processes: int


class CpuByKind(BaseModel):
    """The machine's busy CPU over the run, what the samples filed by kind, and what they did not see."""

    busy_s: float
    every_s: float
    kinds: list[CpuShare]
    unseen_s: float

    def table(self, per: int = 0, per_what: str = "") -> str:
        """One line per kind, largest first, with its share and (given ``per``) its CPU per unit of work."""
        lines = [f"where the machine's {self.busy_s:.0f} CPU-s went (every process sampled each {self.every_s:g} s):"]
        rows = [(s.kind, s.cpu_s, f"{s.processes} processes") for s in self.kinds]
        rows.append(("not seen by a sample (kernel, processes' last moments)", self.unseen_s, ""))
        for kind, cpu_s, count in rows:
            share = 100 * cpu_s / self.busy_s if self.busy_s else 0.0
            each = f"  {cpu_s / per:5.2f} CPU-s per {per_what}" if per else ""
            lines.append(f"  {kind:<56} {cpu_s:7.1f} s  {share:4.0f}%{each}  {count}".rstrip())
        return "\n".join(lines)


@dataclass
class _Seen:
    """One process as the samples saw it: its kind, its CPU when the run started (0 if it started later), its last."""

    kind: str
    before: float
    last: float


class CpuSampler:
    """Samples every process from ``__enter__`` to ``__exit__`` in a thread; ``result`` is then the breakdown."""

    def __init__(self, every_s: float = SAMPLE_S) -> None:
        self.every_s = every_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="cpu-sampler", daemon=True)
        self._seen: dict[tuple[int, float], _Seen] = {}  # by (pid, created): a pid may be reused during a run
        self.result: CpuByKind | None = None

    def __enter__(self) -> CpuSampler:
        self._started, self._busy_before = time.time(), machine_busy_seconds()
        self._sample()  # what every process had spent before the run is not the run's
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()
        busy = (machine_busy_seconds() or 0.0) - (self._busy_before or 0.0)
        totals: dict[str, float] = defaultdict(float)
        counts: dict[str, int] = defaultdict(int)
        for seen in self._seen.values():
            if seen.last > seen.before:
                totals[seen.kind] += seen.last - seen.before
                counts[seen.kind] += 1
        kinds = sorted(
            (CpuShare(kind=k, cpu_s=v, processes=counts[k]) for k, v in totals.items()), key=lambda s: -s.cpu_s
        )
        unseen = max(0.0, busy - sum(totals.values()))
        self.result = CpuByKind(busy_s=busy, every_s=self.every_s, kinds=kinds, unseen_s=unseen)

    def _run(self) -> None:
        while not self._stop.wait(self.every_s):
            self._sample()

    def _sample(self) -> None:
        for process in psutil.process_iter(["create_time", "cpu_times"]):
            created, times = process.info["create_time"], process.info["cpu_times"]
            if created is None or times is None:
                continue  # gone between the listing and the read
            cpu = times.user + times.system
            key = (process.pid, created)
            if key in self._seen:
                self._seen[key].last = cpu
                continue
            before = 0.0 if created >= self._started else cpu  # one started during the run spent all its CPU in it
            self._seen[key] = _Seen(self._kind(process), before, cpu)

    @staticmethod
    def _kind(process: psutil.Process) -> str:
        if process.pid == os.getpid():
            return SAMPLER
        if _in_a_container(process.pid):
            return CONTAINERS
        try:
            return kind_of(process.cmdline(), process.name())
        except psutil.Error:
            return OTHER
