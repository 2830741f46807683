"""Peak memory of a whole process tree while one command runs: every process it starts, detached ones too.

``getrusage(RUSAGE_CHILDREN).ru_maxrss`` is the largest *single* reaped
descendant, not the tree: a harness run's memory is the harness, Chromium's
processes, the product, its runners and the agent CLIs they start, all alive
at once. So the tree is sampled while the command runs and the peak of the
sum is kept. The measuring process makes itself a child subreaper, so a
process that leaves its parent (a runner in its own session whose controller
was restarted, a CLI's background child) is still counted, and reaped here.

Two sums are kept: resident (RSS, what ``ps`` shows, which counts a page
shared by Chromium's processes once per process) and proportional (PSS, each
shared page split among its sharers, so the sum is what the tree really holds).
Processes the Docker engine starts (the oracle's container) are not in the tree.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

import psutil
from pydantic import BaseModel

PR_SET_CHILD_SUBREAPER = 36
SAMPLE_S = 0.25


class TreePeak(BaseModel):
    """The command's exit status, its wall time, and the tree's largest sums seen."""

    exit_status: int
    wall_s: float
    peak_rss_mib: float
    peak_pss_mib: float
    peak_processes: int
    samples: int
    leftovers: int  # processes of the tree still alive after the command ended (then killed)


def become_subreaper() -> None:
    """Orphans of our descendants are re-parented to this process instead of init (Linux only)."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER) failed")


def tree_memory(root: psutil.Process) -> tuple[int, int, int]:
    """Summed RSS and PSS (bytes) and the count of the live processes below ``root``."""
    rss = pss = count = 0
    for process in root.children(recursive=True):
        try:
            if process.status() == psutil.STATUS_ZOMBIE:
                continue
            memory = process.memory_full_info()
        except psutil.Error:  # it ended between the listing and the read
            continue
        rss, pss, count = rss + memory.rss, pss + getattr(memory, "pss", memory.rss), count + 1
    return rss, pss, count


def reap_orphans(me: psutil.Process, keep: int) -> None:
    """Collect re-parented children that ended (the command itself is left to its Popen)."""
    for child in me.children():
        try:
            if child.pid != keep and child.status() == psutil.STATUS_ZOMBIE:
                os.waitpid(child.pid, os.WNOHANG)
        except (psutil.Error, ChildProcessError):
            continue


def run_measured(command: Sequence[str], stdout: Path, env: dict[str, str] | None = None) -> TreePeak:
    """Run ``command`` to its end, its output into ``stdout``, sampling its tree's memory all along."""
    become_subreaper()
    me = psutil.Process()
    peak_rss = peak_pss = peak_count = samples = 0
    started = time.monotonic()
    with open(stdout, "wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
        while process.poll() is None:
            rss, pss, count = tree_memory(me)
            peak_rss, peak_pss, peak_count = max(peak_rss, rss), max(peak_pss, pss), max(peak_count, count)
            samples += 1
            reap_orphans(me, process.pid)
            time.sleep(SAMPLE_S)
    wall = time.monotonic() - started
    # A command that leaves processes behind is reported, and they are ended: a bench must not leave them running.
    leftovers = [p for p in me.children(recursive=True) if p.pid != process.pid]
    for leftover in leftovers:
        try:
            leftover.kill()
        except psutil.Error:
            continue
    psutil.wait_procs(leftovers, timeout=10)
    return TreePeak(
        exit_status=process.returncode,
        wall_s=round(wall, 2),
        peak_rss_mib=round(peak_rss / 2**20, 1),
        peak_pss_mib=round(peak_pss / 2**20, 1),
        peak_processes=peak_count,
        samples=samples,
        leftovers=len(leftovers),
    )
