"""Process facts every driver needs: free ports, live processes by pid and start time, marked processes.

An instance marks every process it starts with its own folder on the
command line, so teardown finds them even after the harness that started
them was killed; these helpers are how both drivers look. (The testbed's
controller, forked rather than started from a command line, is known by its
pid, and after a killed harness by the run folder in its ``TMPDIR``.)
"""

from __future__ import annotations

import os
import select
import signal
import socket
import subprocess
from typing import Protocol

import psutil

from harness.core.product_records import RunIdentity
from harness.core.runner_look import RunnerLook
from harness.products.base import InstanceError


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def process_alive(pid: int, start_time: float, tolerance: float = 0.05) -> bool:
    """True while the process with this pid *and* start time lives: a recycled pid is someone else."""
    try:
        process = psutil.Process(pid)
        return process.status() != psutil.STATUS_ZOMBIE and abs(process.create_time() - start_time) <= tolerance
    except psutil.Error:
        return False


def process_group_alive(pgid: int) -> bool:
    """True while any live (non-zombie) process belongs to process group ``pgid``.

    Runners lead their own session, so a runner's pid is its group id; a
    helper that escaped into a new session is deliberately not counted.
    """
    return bool(group_members(pgid))


def group_members(pgid: int) -> list[int]:
    """The pids of the live (non-zombie) processes the process table puts in group ``pgid``."""
    found = []
    for process in psutil.process_iter(["pid", "status"]):
        try:
            if process.info["status"] != psutil.STATUS_ZOMBIE and os.getpgid(process.pid) == pgid:
                found.append(process.pid)
        except (ProcessLookupError, psutil.Error):
            continue
    return found


def look_at_process(pid: int) -> RunnerLook:
    """The process table's word on ``pid``: whether it lives, since when, in which group (the product's word on
    none of it). The start time is kept as the table's exact figure, so two looks at one process compare equal."""
    looked_for = f"pid {pid}"
    try:
        process = psutil.Process(pid)
        with process.oneshot():
            alive = process.status() != psutil.STATUS_ZOMBIE
            started = repr(process.create_time())
        group = os.getpgid(pid)
    except (ProcessLookupError, psutil.Error):
        return RunnerLook(source="process-table", looked_for=looked_for, alive=False)
    return RunnerLook(source="process-table", looked_for=looked_for, alive=alive, pid=pid, started=started, group=group)


def look_at_runner_process(identity: RunIdentity) -> RunnerLook:
    """The process table's look at the local runner a run names by its pid (a run naming none: nothing to look at)."""
    if not identity.pid:
        return RunnerLook(source="nothing-named", looked_for="nothing: the run names no pid", alive=False)
    return look_at_process(identity.pid)


def group_members_left(before: RunnerLook) -> list[int]:
    """The live processes of the group the table put the runner in when the harness last saw it running."""
    return group_members(before.group) if before.group is not None else []


def marked_processes(marker: str, with_children: bool = False) -> list[psutil.Process]:
    """Every live process whose command line names ``marker`` (and, if asked, their descendants)."""
    found: dict[int, psutil.Process] = {}
    for process in psutil.process_iter(["pid", "cmdline", "status"]):
        try:
            if process.info["status"] != psutil.STATUS_ZOMBIE and marker in " ".join(process.info["cmdline"] or []):
                found[process.pid] = process
                if with_children:
                    found.update({child.pid: child for child in process.children(recursive=True)})
        except psutil.Error:
            continue
    return list(found.values())


def kill_groups(processes: list[psutil.Process]) -> None:
    """SIGKILL each process's group (its own only, never the harness's), then wait for them to go."""
    own_group = os.getpgrp()
    for process in processes:
        try:
            group = os.getpgid(process.pid)
            if group != own_group:
                os.killpg(group, signal.SIGKILL)
            else:
                process.kill()
        except (ProcessLookupError, PermissionError, psutil.Error):
            continue
    psutil.wait_procs(processes, timeout=5)


class ChildProcess(Protocol):
    """What stopping a product process needs of it: ``subprocess.Popen`` has it, and so has a forked controller."""

    @property
    def pid(self) -> int: ...

    def poll(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> int: ...

    def send_signal(self, sig: int) -> None: ...

    def kill(self) -> None: ...


def wait_exit(process: ChildProcess, timeout: float) -> None:
    """``process.wait(timeout)``, woken by the exit itself.

    ``Popen.wait`` with a timeout polls, sleeping up to 50 ms between looks;
    a pidfd becomes readable the moment the process exits.
    """
    try:
        pidfd = os.pidfd_open(process.pid)
    except OSError:  # already reaped, or a kernel without pidfds
        process.wait(timeout)
        return
    try:
        if not select.select([pidfd], [], [], timeout)[0]:
            raise subprocess.TimeoutExpired(f"pid {process.pid}", timeout)
    finally:
        os.close(pidfd)
    process.wait(timeout)  # reaps at once


def stop_process(process: ChildProcess | None, sig: signal.Signals, timeout: float, what: str) -> None:
    """Signal one process and wait for it; one that ignores the signal is killed, and that is an error."""
    if process is None or process.poll() is not None:
        return
    process.send_signal(sig)
    try:
        wait_exit(process, timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(5)
        raise InstanceError(f"{what} ignored {sig.name} for {timeout} s") from None
