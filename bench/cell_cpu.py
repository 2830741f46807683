"""`python -m bench.cell_cpu`: CPU-s of one scripted cell in a warm cell worker, this tree against a baseline tree.

Calibration plays its scripted cells in warm cell workers, so that is where a
cell's CPU is counted here: a player process holds one
:class:`harness.running.cell_worker.CellWorkers` and plays build-revise in it
again and again. The player makes itself a child subreaper, so every process
the cell starts (the worker, Chromium and Playwright's driver, the product's
controller and its runners) is either alive below it or was reaped by one of
its descendants or by itself: the tree's CPU at any moment is its own reaped
children's plus each live descendant's own and reaped children's. That is
exact at each reading, whatever ran in between, and the other work on the
machine is not in it (the oracle's container, which the Docker engine runs,
is not either: it is the same for both trees).

With ``--baseline-python`` (the interpreter of another checkout's virtual
environment, whose editable install imports that checkout's code) a second
player runs the baseline's code, and the two play alternately, cell for
cell, so both see the same load. Prints medians, by kind of process, and the
ratio; never asserts anything.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import suppress
from pathlib import Path
from types import ModuleType
from typing import Any

CASE = "build-revise"
PR_SET_CHILD_SUBREAPER = 36


def tree_cpu() -> dict[str, float]:
    """CPU-s of this process's descendants (reaped ones included), by kind, at this moment."""
    import psutil

    kind_of = _cpu_by_kind().kind_of
    me = psutil.Process()
    mine = me.cpu_times()
    totals = {"reaped by the player": mine.children_user + mine.children_system}
    for process in me.children(recursive=True):
        try:
            times = process.cpu_times()
            kind = kind_of(process.cmdline(), process.name())
        except psutil.Error:  # it ended between the listing and the read: its parent holds its time now
            continue
        spent = times.user + times.system + times.children_user + times.children_system
        totals[kind] = totals.get(kind, 0.0) + spent
    return totals


def _cpu_by_kind() -> ModuleType:
    """bench.cpu_by_kind from this file's folder: a player runs where no bench package is importable (either
    checkout's interpreter, outside both folders), and both players file processes by the same kinds."""
    import importlib.util

    if "bench.cpu_by_kind" in sys.modules:
        return sys.modules["bench.cpu_by_kind"]
    spec = importlib.util.spec_from_file_location("bench.cpu_by_kind", Path(__file__).with_name("cpu_by_kind.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench.cpu_by_kind"] = module  # before it runs: its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def player() -> int:
    """Read campaign names from stdin; play one cell for each in a warm worker; print its CPU-s and wall time."""
    from calibration.runner import play_cell
    from harness.running.cell_worker import CellWorkers

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER) failed")
    workers = CellWorkers(1)
    results = Path(tempfile.mkdtemp(prefix="everyday-bench-cell-cpu-"))
    try:
        for line in sys.stdin:
            before, started = tree_cpu(), time.perf_counter()
            record = play_cell(CASE, results, line.strip(), workers)
            _reap()
            after = tree_cpu()
            spent = {kind: after.get(kind, 0.0) - before.get(kind, 0.0) for kind in after}
            reply = {
                "verdict": record.verdict.value if record else "no attempt",
                "wall_s": time.perf_counter() - started,
                "cpu_s": spent,
                "phases": record.timing.phases if record else {},
                "overhead_s": record.timing.harness_overhead_s if record else None,
            }
            print(json.dumps(reply), flush=True)
    finally:
        workers.close()
        shutil.rmtree(results, ignore_errors=True)
    return 0


def _reap() -> None:
    """Collect the orphans re-parented to the player that have ended, so their CPU is counted as reaped."""
    with suppress(ChildProcessError):  # none left
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass


def _start(python: str) -> subprocess.Popen[str]:
    environment = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.Popen(
        [python, __file__, "--player"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=environment,
        cwd=tempfile.gettempdir(),  # neither checkout's folder: each imports its own installed code
    )


def _play(process: subprocess.Popen[str], campaign: str) -> dict[str, Any]:
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(campaign + "\n")
    process.stdin.flush()
    return json.loads(process.stdout.readline())  # type: ignore[no-any-return]


def _summary(label: str, cells: list[dict[str, Any]]) -> float:
    total = statistics.median(sum(cell["cpu_s"].values()) for cell in cells)
    verdicts = ", ".join(sorted({cell["verdict"] for cell in cells}))
    print(
        f"{label}: {len(cells)} cells ({verdicts}), median {total:.2f} CPU-s per cell, wall {statistics.median(c['wall_s'] for c in cells):.2f} s, overhead {statistics.median(c['overhead_s'] or 0.0 for c in cells):.2f} s"
    )
    for kind in sorted({kind for cell in cells for kind in cell["cpu_s"]}):
        print(f"    {kind:<22} {statistics.median(cell['cpu_s'].get(kind, 0.0) for cell in cells):6.2f} CPU-s")
    for phase in sorted({phase for cell in cells for phase in cell["phases"]}):
        print(f"    phase {phase:<16} {statistics.median(cell['phases'].get(phase, 0.0) for cell in cells):6.2f} s")
    return total


def main(argv: list[str] | None = None) -> int:
    from bench.arguments import count  # here, not at the top: the player runs where no bench package is importable

    parser = argparse.ArgumentParser(prog="python -m bench.cell_cpu", description=__doc__)
    parser.add_argument(
        "--rounds", type=count, default=5, help="cells played by each tree after one warm-up (default 5)"
    )
    parser.add_argument("--baseline-python", help="the interpreter of the checkout to compare with")
    args = parser.parse_args(argv)
    variants = {"this tree": sys.executable} | ({"baseline": args.baseline_python} if args.baseline_python else {})
    players = {label: _start(python) for label, python in variants.items()}
    cells: dict[str, list[dict[str, Any]]] = {label: [] for label in variants}
    load = os.getloadavg()[0]
    try:
        for label, process in players.items():
            _play(process, f"warm-up-{label.replace(' ', '-')}")
        for round_ in range(args.rounds):
            for label, process in players.items() if round_ % 2 == 0 else reversed(players.items()):
                cells[label].append(_play(process, f"{label.replace(' ', '-')}-{round_}"))
    finally:
        for process in players.values():
            assert process.stdin is not None
            process.stdin.close()
            process.wait()
    print(
        f"scripted {CASE} in a warm cell worker; load average (1 min) {load:.1f} before, {os.getloadavg()[0]:.1f} after"
    )
    totals = {label: _summary(label, found) for label, found in cells.items()}
    if "baseline" in totals:
        pairs = [
            sum(ours["cpu_s"].values()) / sum(theirs["cpu_s"].values())
            for ours, theirs in zip(cells["this tree"], cells["baseline"], strict=True)
        ]
        print(
            f"this tree / baseline: {totals['this tree'] / totals['baseline']:.2f}x CPU-s per cell (medians);"
            f" round by round {', '.join(f'{pair:.2f}' for pair in pairs)}, median {statistics.median(pairs):.2f}x"
        )
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--player"]:
        del sys.path[0]  # this file's folder: its bench modules would shadow the packages of the same names
        sys.exit(player())
    from bench.entry import run_benchmark

    sys.exit(run_benchmark(main))
