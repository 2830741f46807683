"""The locked-down container every grade runs in, and the host-side deadline around it.

One container per grade: its start-up dominates the cost, and one set of
limits is simpler to reason about. Everything the delivery could use to
escape or exhaust the host is switched off or bounded here; the collector
inside adds per-command limits. Containers carry labels so a grade killed
half-way leaves nothing that the next run cannot find and remove.

The delivery is *copied* into the container (`put_archive`), never
bind-mounted, so the engine may be another machine (`DOCKER_HOST`). The
root filesystem stays read-only; the daemon only accepts a copy into a
volume, so the container gets an anonymous volume at /oracle that is
removed with it. The copied files are owned by root with modes 0555/0444
and the delivery's code runs as nobody: it can read its files, never change
them.

A grade's container is a *standby*: created and started first, running a
few lines that wait for /oracle/ready, and only then given the delivery,
the task's collector and its plan (one put_archive, `ready` last, into a
never-started holder sharing its volume, so the copy need not wait for the
start to finish). Why:
container start-up is the largest fixed cost of a grade, and this way it
runs on the engine while the host does its own work (the command line
imports pydantic and the task, unpacks and checks the ZIP) instead of after
it. Nothing of the delivery runs before it is complete.

Every step is one request of the engine's API (oracle.engine), nothing
re-inspecting what was just created: a grade's own cost is the few engine
round trips around the container, so each one counts.
"""

from __future__ import annotations

import io
import json
import math
import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NamedTuple

from oracle.background import Task
from oracle.engine import Engine, EngineError, EngineTimeout, NotFound

if TYPE_CHECKING:
    import tarfile
    from pathlib import Path

CONFLICT = 409  # the engine is already removing the container
LABEL = "everyday-evals.oracle"
LABEL_PID = "everyday-evals.oracle.pid"
LABEL_HOST = "everyday-evals.oracle.host"
LABEL_EXPIRES = "everyday-evals.oracle.expires"
VOLUME = "/oracle"
DELIVERY_MOUNT = f"{VOLUME}/delivery"
"""Where the delivery is inside the container (in the /oracle volume, beside the collector and its plan)."""
READY = "ready"
USER = "65534:65534"
MAX_DEADLINE_S = 3600.0
"""No grade of a small CLI tool needs an hour; a larger value is a typo, not a wish."""


class _Bounds(NamedTuple):
    memory_bytes: int = 512 * 1024 * 1024
    child_memory_bytes: int = 256 * 1024 * 1024
    nano_cpus: int = 2_000_000_000
    pids: int = 128
    tmpfs_size: str = "16m"
    log_max_size: str = "1m"
    read_bytes: int = 1024 * 1024
    command_timeout_s: float = 4.0
    grade_deadline_s: float = 30.0


class SandboxLimits(_Bounds):
    """The bounds of one grade; defaults leave an honest small command-line tool ample room.

    The CPU bound (`nano_cpus`, two CPUs) is a resource bound, not a security
    one: what a delivery can do is bounded by the lock-down, pids, memory and
    the time limits, whatever its CPU. It keeps one grade from taking more
    than two cores of a larger host running several grades and browsers at
    once. Two, not one: a collector runs several of the delivery's calls at
    a time, and with one CPU they queued behind each other on a machine
    whose second core was idle; a grade waited for that.

    Neither a pydantic model nor a dataclass: the command line creates its
    standby container before it imports pydantic, or dataclasses (see the
    module's docstring); a NamedTuple costs neither. The boundary that takes
    these values from callers (GradeOptions) validates them; the check below
    keeps direct users honest too.
    """

    __slots__ = ()

    def __new__(cls, *args: Any, **kwargs: Any) -> SandboxLimits:
        limits = super().__new__(cls, *args, **kwargs)
        for name in ("command_timeout_s", "grade_deadline_s"):
            value = getattr(limits, name)
            if not (math.isfinite(value) and 0 < value <= MAX_DEADLINE_S):
                raise ValueError(f"{name} must be more than 0 and at most {MAX_DEADLINE_S:g} s, got {value!r}")
        return limits


class SandboxRun(NamedTuple):
    """What came back from the container: its stdout (bounded), exit status, and whether the deadline hit."""

    stdout: bytes
    stderr_tail: str
    exit: int | None
    deadline_hit: bool


def labels(deadline_s: float) -> dict[str, str]:
    """Who owns a container and until when, so the next run can tell a leftover from a live grade."""
    return {
        LABEL: "1",
        LABEL_PID: str(os.getpid()),
        LABEL_HOST: socket.gethostname(),
        LABEL_EXPIRES: str(int(time.time() + deadline_s + 30)),
    }


def create_hardened(
    client: Engine,
    image_id: str,
    command: list[str],
    limits: SandboxLimits,
    owner: dict[str, str] | None = None,
    volume_of: str | None = None,
) -> str:
    """Create (not start) one hardened container with an empty /oracle volume; returns its id.

    Shared by grades, tests and the benchmark's bare run so all three measure
    and check the very same configuration. `owner` overrides the labels (tests
    of leftover cleanup fake a dead or expired owner). `volume_of` gives it
    that container's /oracle volume instead of a new one (a standby's holder).
    """
    host_config: dict[str, Any] = {
        "NetworkMode": "none",
        "ReadonlyRootfs": True,
        "CapDrop": ["ALL"],
        "SecurityOpt": ["no-new-privileges"],
        "PidsLimit": limits.pids,
        "Memory": limits.memory_bytes,
        "MemorySwap": limits.memory_bytes,
        "NanoCpus": limits.nano_cpus,
        "IpcMode": "none",
        "Tmpfs": {"/tmp": f"rw,nosuid,nodev,noexec,size={limits.tmpfs_size},mode=1777"},
        "Ulimits": [
            {"Name": "nofile", "Soft": 256, "Hard": 256},
            {"Name": "core", "Soft": 0, "Hard": 0},
            {"Name": "fsize", "Soft": 16 << 20, "Hard": 16 << 20},
        ],
        "LogConfig": {"Type": "json-file", "Config": {"max-size": limits.log_max_size, "max-file": "1"}},
    }
    if volume_of is None:
        # An anonymous volume (no source: nothing of the host), labelled so a sweep can find it if its container
        # was removed without it (e.g. by code that forgot to remove its volumes).
        host_config["Mounts"] = [{"Type": "volume", "Target": VOLUME, "VolumeOptions": {"Labels": {LABEL: "1"}}}]
    else:
        host_config["VolumesFrom"] = [volume_of]
    return client.create(
        {
            "Image": image_id,
            "Cmd": command,
            "User": USER,
            "Env": ["LC_ALL=C.UTF-8", "HOME=/tmp", "PYTHONDONTWRITEBYTECODE=1"],
            "WorkingDir": "/tmp",
            "Labels": owner or labels(limits.grade_deadline_s),
            "Tty": False,
            "OpenStdin": False,
            "AttachStdin": False,
            "AttachStdout": True,
            "AttachStderr": True,
            "HostConfig": host_config,
        }
    )


def _owner_gone(labels: dict[str, str]) -> bool:
    """A leftover is ours to remove when its grade's deadline passed or its process on this host died."""
    if time.time() > float(labels.get(LABEL_EXPIRES, "0") or 0):
        return True
    if labels.get(LABEL_HOST) != socket.gethostname():
        return False
    try:
        os.kill(int(labels.get(LABEL_PID, "0")), 0)
    except ProcessLookupError:
        return True
    except (PermissionError, ValueError):
        return False
    return False


def _remove(client: Engine, container_id: str) -> None:
    """Remove a container and its anonymous /oracle volume, whatever state it is in.

    Gone already, or being removed by someone else (409: two grades of
    parallel cells sweeping the same leftover), is the same outcome.
    """
    try:
        client.remove(container_id)
    except NotFound:
        pass
    except EngineError as error:
        if error.status != CONFLICT:
            raise


def remove_leftovers(client: Engine) -> int:
    """Remove containers left by killed grades (found by label), then our volumes no container uses any more.

    Concurrent live grades are left alone: their containers' owners are alive,
    and a volume in use by a container is never pruned.
    """
    removed = 0
    for summary in client.containers(LABEL):
        if _owner_gone(summary.get("Labels") or {}):
            _remove(client, summary["Id"])
            removed += 1
    try:
        client.prune_volumes(LABEL)
    except EngineError as error:  # another grade's sweep is pruning right now: its prune covers ours
        if error.status != CONFLICT:
            raise
    return removed


def _owned_by_root(info: tarfile.TarInfo) -> tarfile.TarInfo:
    info.uid = info.gid = 0
    info.uname = info.gname = "root"
    info.mode = 0o555 if info.isdir() else 0o444
    info.mtime = 0
    return info


def oracle_tar(delivery: Path | None, files: dict[str, bytes]) -> bytes:
    """A tar for put_archive into /oracle: `delivery/` (the extracted delivery), then `files`, then `ready`.

    Root-owned, folders 0555, files 0444, whatever the disk or the ZIP said,
    so the unprivileged user inside can read everything and change nothing.
    `ready` comes last: tar entries are written in order, so when the
    standby sees it, everything before it is complete. (tarfile is imported
    here: the command line asks for its container before it needs one.)
    """
    import tarfile

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        if delivery is not None:
            archive.add(delivery, arcname="delivery", filter=_owned_by_root)
        for name, data in [*files.items(), (READY, b"")]:
            info = _owned_by_root(tarfile.TarInfo(name))
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


PREWARMED = (
    "argparse",
    "atexit",
    "importlib.util",
    "io",
    "json",
    "re",
    "resource",
    "select",
    "selectors",
    "shutil",
    "signal",
    "tempfile",
    "types",
    "warnings",
)
"""Standard-library modules a standby imports while it waits for its delivery: the tasks' collectors import them
first thing, so when the copy comes in after the container started (a quiet host's usual order), their import is
off the grade's path. Only the standard library runs before `ready`, never anything copied in."""

STANDBY = f"""
import os, sys, time
import {", ".join(PREWARMED)}
limit = time.monotonic() + float(sys.argv[1])
while not os.path.exists({VOLUME + "/" + READY!r}):
    if time.monotonic() > limit:
        sys.exit(125)
    time.sleep(0.002)
source = open({VOLUME + "/collector.py"!r}).read()
sys.argv = ["-c", open({VOLUME + "/plan.json"!r}).read()]
exec(compile(source, "<string>", "exec"), {{"__name__": "__main__", "__builtins__": __builtins__}})
"""
"""What a standby runs: wait for `ready`, then run the collector exactly as `python3 -c SOURCE PLAN_JSON` would."""
STANDBY_WAIT_S = 120.0
"""A standby nobody feeds exits on its own (the host removes it anyway; this bounds a host killed mid-grade)."""


class Standby:
    """A hardened container started ahead of its delivery; `run` feeds it and collects, `close` removes it.

    Creation and start happen on a background thread, so the caller can do
    its own work meanwhile; every method waits for what it needs first.
    Always close (or use as a context manager): the containers are removed
    on every path, Ctrl-C included.

    The delivery is not copied into the standby itself but into its
    *holder*: a second hardened container, created and never started, that
    shares the standby's /oracle volume. Why: the engine does not copy into
    a container while it is starting it, so a copy into the standby waited
    for its start to finish (50 to 300 ms of every grade, by load); a copy
    into the holder runs while the standby starts.
    The holder is removed as soon as the copy is in (the volume stays with
    the standby, whose removal takes it along).
    """

    def __init__(self, client: Engine, image_id: str, limits: SandboxLimits) -> None:
        self.client = client
        self.image_id = image_id
        self.limits = limits
        self._closed = False
        self._created = Task(self._create, "oracle-standby")
        self._started = Task(self._start, "oracle-standby")
        self._holder = Task(self._create_holder, "oracle-standby")
        self._holder_gone: Task[None] | None = None

    def _create(self) -> str:
        return create_hardened(self.client, self.image_id, ["python3", "-c", STANDBY, str(STANDBY_WAIT_S)], self.limits)

    def _start(self) -> str:
        container_id = self._created.result()
        self.client.start(container_id)  # a failed start leaves the container to close(), like any other
        return container_id

    def _create_holder(self) -> str:
        return create_hardened(self.client, self.image_id, ["true"], self.limits, volume_of=self._created.result())

    def container_id(self) -> str:
        """The started container's id (waits for the start; raises what creating or starting raised)."""
        return self._started.result()

    def run(self, delivery: Path, collector: Path, plan: dict[str, Any]) -> SandboxRun:
        """Copy in the delivery, the collector and its plan, then wait for the collector within the deadline.

        Its stderr is fetched only when the collector failed (non-zero exit or
        no output), the one case whose check reports it: one engine round trip
        less for every good grade.
        """
        files = {"collector.py": collector.read_bytes(), "plan.json": json.dumps(plan).encode()}
        holder_id = self._holder.result()
        self.client.put_archive(holder_id, VOLUME, oracle_tar(delivery, files))
        self._holder_gone = Task(lambda: _remove(self.client, holder_id), "oracle-standby")  # its part is done
        container_id = self.container_id()
        exit_status, deadline_hit = wait_bounded(self.client, container_id, self.limits)
        stdout = self.client.logs(container_id, stdout=True, limit=self.limits.read_bytes)
        failed = not deadline_hit and (exit_status != 0 or not stdout.strip())
        stderr = (
            "" if not failed else self.client.logs(container_id, stdout=False, limit=4096).decode("utf-8", "replace")
        )
        return SandboxRun(stdout=stdout, stderr_tail=stderr.strip()[-300:], exit=exit_status, deadline_hit=deadline_hit)

    def close(self) -> None:
        """Remove the holder, then the standby and its volume (idempotent); what was never created left nothing.

        In that order: the engine removes a volume only with the last container using it.
        """
        if self._closed:
            return
        self._closed = True
        self._started.error()  # whatever their outcome, both are over: nothing is created behind our back
        holder = self._holder.outcome()
        if self._holder_gone is not None and self._holder_gone.error() is None:
            holder = None  # removed right after the copy
        if holder is not None:
            _remove(self.client, holder)
        standby = self._created.outcome()
        if standby is not None:
            _remove(self.client, standby)

    def __enter__(self) -> Standby:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


@contextmanager
def hardened_container(
    client: Engine, image_id: str, command: list[str], limits: SandboxLimits, delivery: Path | None = None
) -> Iterator[str]:
    """Create one hardened container running `command`, copy a folder in (to DELIVERY_MOUNT), start it; removed on exit, on errors and on Ctrl-C too.

    For commands that need nothing fed after start: the benchmark's bare run and tests.
    """
    container_id = create_hardened(client, image_id, command, limits)
    try:
        if delivery is not None:
            client.put_archive(container_id, VOLUME, oracle_tar(delivery, {}))
        client.start(container_id)
        yield container_id
    finally:
        _remove(client, container_id)


def wait_bounded(client: Engine, container_id: str, limits: SandboxLimits) -> tuple[int | None, bool]:
    """Wait for the container until the per-grade deadline; kill it when the deadline passes.

    A connection the engine drops while waiting counts as the deadline too
    (the SDK's reading, kept): the container is killed either way.
    """
    try:
        return client.wait(container_id, timeout=limits.grade_deadline_s), False
    except EngineError as error:
        if not isinstance(error, EngineTimeout) and error.status is not None:
            raise  # the engine answered and refused: not a deadline
        try:
            client.kill(container_id)
        except EngineError:
            pass
        return None, True


def run_collector(
    client: Engine,
    image_id: str,
    delivery: Path,
    collector: Path,
    plan: dict[str, Any],
    limits: SandboxLimits,
    standby: Standby | None = None,
) -> SandboxRun:
    """Run a task's collector over a delivery folder in one hardened container (a standby started earlier, or a new one)."""
    with standby or Standby(client, image_id, limits) as chosen:
        return chosen.run(delivery, collector, plan)
