"""Everything a harness run starts lives in one folder labelled with its owner, so a killed run can be cleaned up.

Teardown in ``atexit`` and ``finally`` does not run after SIGKILL: the
product's controller (in its own session) keeps running and its data and the
browser's temporary folders stay on disk. So a run claims a folder
``<tmp>/everyday-evals/<pid>-<start>/``, labels it with its process identity
and points ``TMPDIR`` there before anything starts: product instances, their
runners, the Playwright driver and Chromium all put their files under it and
name it on their command line or in their environment. The next run (or
``harness clean``) finds folders whose owner is gone, ends every process that
names them, has the product drivers remove what their instances keep outside
(a sandbox on an engine) and removes them; folders of live runs are left alone.
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil
from pydantic import BaseModel, ValidationError

from harness.products import remove_leftovers

OWNED_ROOT_NAME = "everyday-evals"
OWNER_FILE = "owner.json"


class Owner(BaseModel):
    """A process, told apart from a later one that reuses its pid by its start time."""

    pid: int
    started: float

    @classmethod
    def this_process(cls) -> Owner:
        return cls(pid=os.getpid(), started=psutil.Process().create_time())

    def alive(self) -> bool:
        try:
            process = psutil.Process(self.pid)
            return process.status() != psutil.STATUS_ZOMBIE and abs(process.create_time() - self.started) < 0.05
        except psutil.Error:
            return False


class Removed(BaseModel):
    """What cleaning one dead owner's folder did."""

    folder: Path
    processes: int


def owned_root(base: Path | None = None) -> Path:
    return (base or Path(tempfile.gettempdir())) / OWNED_ROOT_NAME


def outside_run_folders(path: Path | None = None) -> Path:
    """The temporary folder that encloses ``path`` (default: this process's) outside every labelled run folder.

    A run started from inside another's folder nests its own folder there;
    three levels deep, a product's or Chromium's socket path passes the
    108 bytes a Unix socket allows ("AF_UNIX path too long"). A command
    that starts a whole `harness run` of its own gives it this folder instead.
    """
    path = path or Path(tempfile.gettempdir())
    return Path(*path.parts[: path.parts.index(OWNED_ROOT_NAME)]) if OWNED_ROOT_NAME in path.parts else path


def claim_run_folder(base: Path | None = None) -> Path:
    """Make this process's labelled folder and send every temporary file of this run (and its children) there."""
    owner = Owner.this_process()
    folder = owned_root(base) / f"{owner.pid}-{int(owner.started)}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / OWNER_FILE).write_text(owner.model_dump_json())
    os.environ["TMPDIR"] = str(folder)
    tempfile.tempdir = str(folder)
    return folder


def release_run_folder(folder: Path) -> int:
    """The run is over: end whatever still names its folder, remove the folder, and say how many processes ended.

    Normally nothing is left, because each cell tore its instances down. After
    Ctrl-C the pytest controller can return while a worker is still tearing
    down (or was ended halfway), and a runner in its own session outlives it.
    """
    ended = end_processes_naming(folder)
    remove_leftovers(folder)
    shutil.rmtree(folder, ignore_errors=True)
    return ended


@contextmanager
def owned_run() -> Iterator[Path]:
    """A command that starts products, browsers or agents: what dead runs left is removed, then everything this
    one starts lives in its own labelled folder, which is released (its processes ended) when it ends."""
    remove_dead_owners()
    folder = claim_run_folder()
    try:
        yield folder
    finally:
        release_run_folder(folder)


def remove_dead_owners(base: Path | None = None) -> list[Removed]:
    """End the processes and remove the folders of runs whose owner is gone; live runs are left alone."""
    root = owned_root(base)
    if not root.is_dir():
        return []
    removed = []
    for folder in sorted(child for child in root.iterdir() if child.is_dir()):
        owner = _owner_of(folder)
        if owner is not None and owner.alive():
            continue
        ended = end_processes_naming(folder)
        remove_leftovers(folder, every_product=True)
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(Removed(folder=folder, processes=ended))
    return removed


def _owner_of(folder: Path) -> Owner | None:
    try:
        return Owner.model_validate_json((folder / OWNER_FILE).read_text())
    except (OSError, ValidationError):
        return _claiming(folder.name)


def _claiming(name: str) -> Owner | None:
    """The owner of a folder whose label is not written yet, read from its name (pid and start second) while it runs.

    Another run's sweep once came between a claim's folder and its label:
    it took the live claimer for dead and removed its folder, and every cell
    of that `make calibrate` then failed to launch its browser there (124
    of 185 cases not played). A folder whose namer is gone is still removed.
    """
    pid, _, started = name.partition("-")
    if not (pid.isdigit() and started.isdigit()):
        return None
    try:
        created = psutil.Process(int(pid)).create_time()
    except psutil.Error:
        return None
    return Owner(pid=int(pid), started=created) if int(created) == int(started) else None


def _names(process: psutil.Process, marker: str) -> bool:
    """The process names the folder on its command line or was started with TMPDIR inside it."""
    try:
        if marker in " ".join(process.cmdline()):
            return True
        return process.environ().get("TMPDIR", "").startswith(marker)
    except psutil.Error:
        return False


def end_processes_naming(folder: Path, rounds: int = 5) -> int:
    """SIGKILL every other process that names ``folder``, again until none is left (one may fork meanwhile)."""
    marker = str(folder)
    me = os.getpid()
    ended = 0
    for _ in range(rounds):
        found = [p for p in psutil.process_iter() if p.pid != me and _names(p, marker)]
        if not found:
            break
        for process in found:
            try:
                process.send_signal(signal.SIGKILL)
            except psutil.Error:
                continue
        psutil.wait_procs(found, timeout=5)
        ended += len(found)
    return ended
