"""The locked-down container every grade runs in, and the host-side deadline around it.

One container per grade: its start-up dominates the cost, and one set of
limits is simpler to reason about. Everything the delivery could use to
escape or exhaust the host is switched off or bounded here; the collector
inside adds per-command limits. Containers carry labels so a grade killed
half-way leaves nothing that the next run cannot find and remove.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import docker
import requests
from docker.errors import DockerException, NotFound
from docker.models.containers import Container
from docker.types import LogConfig, Ulimit
from pydantic import BaseModel

LABEL = "everyday-evals.oracle"
LABEL_PID = "everyday-evals.oracle.pid"
LABEL_HOST = "everyday-evals.oracle.host"
LABEL_EXPIRES = "everyday-evals.oracle.expires"
DELIVERY_MOUNT = "/delivery"


class SandboxLimits(BaseModel):
    """The bounds of one grade; defaults leave an honest small command-line tool ample room."""

    memory_bytes: int = 512 * 1024 * 1024
    child_memory_bytes: int = 256 * 1024 * 1024
    nano_cpus: int = 1_000_000_000
    pids: int = 128
    tmpfs_size: str = "16m"
    log_max_size: str = "1m"
    read_bytes: int = 1024 * 1024
    command_timeout_s: float = 4.0
    grade_deadline_s: float = 30.0


class SandboxRun(BaseModel):
    """What came back from the container: its stdout (bounded), exit status, and whether the deadline hit."""

    stdout: bytes
    stderr_tail: str
    exit: int | None
    deadline_hit: bool


def hardening(limits: SandboxLimits, deadline_s: float) -> dict:
    """Keyword arguments for containers.create shared by grades and the benchmark's bare run."""
    return dict(
        user="65534:65534",
        network_mode="none",
        read_only=True,
        cap_drop=["ALL"],
        security_opt=["no-new-privileges"],
        pids_limit=limits.pids,
        mem_limit=limits.memory_bytes,
        memswap_limit=limits.memory_bytes,
        nano_cpus=limits.nano_cpus,
        ipc_mode="none",
        tmpfs={"/tmp": f"rw,nosuid,nodev,noexec,size={limits.tmpfs_size},mode=1777"},
        ulimits=[Ulimit(name="nofile", soft=256, hard=256), Ulimit(name="core", soft=0, hard=0), Ulimit(name="fsize", soft=16 << 20, hard=16 << 20)],
        log_config=LogConfig(type=LogConfig.types.JSON, config={"max-size": limits.log_max_size, "max-file": "1"}),
        labels={
            LABEL: "1",
            LABEL_PID: str(os.getpid()),
            LABEL_HOST: socket.gethostname(),
            LABEL_EXPIRES: str(int(time.time() + deadline_s + 30)),
        },
        environment={"LC_ALL": "C.UTF-8", "HOME": "/tmp", "PYTHONDONTWRITEBYTECODE": "1"},
        working_dir="/tmp",
        stdin_open=False,
        detach=True,
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


def remove_leftovers(client: docker.DockerClient) -> int:
    """Remove containers left by killed grades (found by label); leaves concurrent live grades alone."""
    removed = 0
    for summary in client.api.containers(all=True, filters={"label": LABEL}):
        if _owner_gone(summary.get("Labels") or {}):
            try:
                client.api.remove_container(summary["Id"], force=True)
                removed += 1
            except NotFound:
                pass
    return removed


def _remove(container: Container) -> None:
    try:
        container.remove(force=True)
    except NotFound:
        pass


@contextmanager
def hardened_container(client: docker.DockerClient, image_id: str, command: list[str], limits: SandboxLimits, mounts: dict | None = None) -> Iterator[Container]:
    """Create and start one hardened container; it is removed on exit, on errors and on Ctrl-C too."""
    container = client.containers.create(image_id, command, volumes=mounts or {}, **hardening(limits, limits.grade_deadline_s))
    try:
        container.start()
        yield container
    finally:
        _remove(container)


def _bounded_logs(container: Container, limit: int, stdout: bool) -> bytes:
    """Read at most `limit` bytes of what the engine kept (which json-file max-size bounds already)."""
    kept = bytearray()
    for chunk in container.logs(stdout=stdout, stderr=not stdout, stream=True, follow=False):
        kept += chunk[: limit - len(kept)]
        if len(kept) >= limit:
            break
    return bytes(kept)


def wait_bounded(container: Container, limits: SandboxLimits) -> tuple[int | None, bool]:
    """Wait for the container until the per-grade deadline; kill it when the deadline passes."""
    try:
        status = container.wait(timeout=limits.grade_deadline_s)
        return int(status.get("StatusCode", -1)), False
    except (requests.exceptions.ReadTimeout, requests.exceptions.ConnectionError):
        try:
            container.kill()
        except DockerException:
            pass
        return None, True


def run_collector(client: docker.DockerClient, image_id: str, delivery: Path, collector: Path, plan: dict, limits: SandboxLimits) -> SandboxRun:
    """Run a task's collector script over a delivery folder in one hardened container and return its bounded output.

    The script's source is passed to `python3 -c` so nothing needs mounting but the delivery, read-only.
    """
    command = ["python3", "-c", collector.read_text(), json.dumps(plan)]
    mounts = {str(delivery): {"bind": DELIVERY_MOUNT, "mode": "ro"}}
    with hardened_container(client, image_id, command, limits, mounts) as container:
        exit_status, deadline_hit = wait_bounded(container, limits)
        stdout = _bounded_logs(container, limits.read_bytes, stdout=True)
        stderr = _bounded_logs(container, 4096, stdout=False).decode("utf-8", "replace")
    return SandboxRun(stdout=stdout, stderr_tail=stderr.strip()[-300:], exit=exit_status, deadline_hit=deadline_hit)
