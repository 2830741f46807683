"""The harness's own view of the testbed's runner sandboxes, through the same Docker engine (DOCKER_HOST).

What a story judges about a sandboxed run it reads from the product's API
(the run's lease); what only the engine can say (is that container still
running, what was it allowed to reach, is anything of the instance left) the
harness asks the engine itself, as it watches the process table for a local
runner.
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import shutil
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from harness.core.product_records import RunLease
from harness.core.runner_look import RunnerLook
from harness.core.sandbox_config import ContainerConfig
from harness.products.base import InstanceError
from harness.testbed.sandbox import image, meters
from harness.testbed.sandbox.agent_socket import socket_folder
from harness.testbed.sandbox.containers import LABEL_DATA, READ_ONLY_MOUNTS, RUNNER_ENV, data_label
from oracle.engine import Engine, EngineError, NotFound
from oracle.image import CannotGrade, engine

log = logging.getLogger(__name__)

IMAGE_LOCK = Path("/tmp/everyday-evals-runner-image.lock")


def _engine() -> Engine:
    try:
        return engine()
    except CannotGrade as error:
        raise InstanceError(f"no Docker engine for the runner sandboxes: {error}") from None


def prepare_image() -> str:
    """The runner image's id on the engine, built once from this code (one builder at a time on this machine)."""
    IMAGE_LOCK.touch(exist_ok=True)
    with IMAGE_LOCK.open() as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            return image.ensure(_engine()).id
        except (image.RunnerImageError, EngineError) as error:
            raise InstanceError(f"no runner image: {error}") from None


def containers(data_dir: Path) -> list[dict[str, Any]]:
    """Every container of the instance on ``data_dir``, running or not (the engine's summaries)."""
    return _engine().containers(f"{LABEL_DATA}={data_label(data_dir)}")


def remove_leftovers(data_dirs: Iterable[Path]) -> None:
    """``remove_all`` for each of ``data_dirs`` whose agent socket's folder is still there (a container instance
    that was never torn down); where no engine answers, there is nothing on it to remove."""
    for data_dir in data_dirs:
        if socket_folder(data_dir).exists():
            try:
                remove_all(data_dir)
            except InstanceError:
                return


def remove_all(data_dir: Path) -> None:
    """Remove every container of the instance (its runs are over), the folder of its agent socket and those of its
    runs' metering sockets (their processes name the data folder: the instance ends them with its runners)."""
    client = _engine()
    for summary in client.containers(f"{LABEL_DATA}={data_label(data_dir)}"):
        try:
            client.remove(summary["Id"])
        except NotFound:
            pass
    shutil.rmtree(socket_folder(data_dir), ignore_errors=True)
    shutil.rmtree(meters.root(data_dir), ignore_errors=True)


def lease_alive(lease: RunLease) -> bool:
    """The leased container runs, with the lease's start time (the engine's word, not the product's)."""
    try:
        state = _engine().inspect(lease.sandbox_id)["State"]
    except NotFound:
        return False
    return bool(state.get("Running")) and state.get("StartedAt") == lease.started_at


def configuration(sandbox_id: str) -> ContainerConfig | None:
    """The whole of the engine's record of the container, as containment reads it (None: gone already).

    Its network and mounts, user, capabilities, privileged mode, PID and IPC namespaces, devices, security options
    and the names of the variables visible inside, beside those the runner is given and its image bakes in.
    """
    client = _engine()
    try:
        found = client.inspect(sandbox_id)
        baked = client.image_env(str(found["Image"]))
    except NotFound:
        return None
    given = [*RUNNER_ENV, *(entry.split("=", 1)[0] for entry in baked)]
    return ContainerConfig.from_inspect(found, given, list(READ_ONLY_MOUNTS))


START_WINDOW_S = 1.0
"""How long each request for the engine's start events lasts; the next one starts where it ended."""


@contextmanager
def following_starts(data_dir: Path, started: Callable[[str], None]) -> Iterator[None]:
    """Inside, ``started`` is called, on a thread of its own, with the id of each container of the instance on
    ``data_dir`` as the engine starts it: a look at the container then comes before its product could remove
    it, however short its run and however late the story's next look.

    The engine is asked for its start events in windows of its own clock, each beginning where the last ended,
    so none is missed between them. An engine that stops answering ends the following (the story's own looks
    remain); leaving the block ends it within a window.
    """
    client = _engine()
    filters = {"type": ["container"], "event": ["start"], "label": [f"{LABEL_DATA}={data_label(data_dir)}"]}
    stop = threading.Event()

    def follow() -> None:
        try:
            since = client.clock()
            while not stop.is_set():
                until = since + START_WINDOW_S
                for event in client.events(filters, since, until):
                    started(str(event["id"]))
                since = until
        except (EngineError, InstanceError) as error:
            log.warning("the engine's start events could not be followed: %s", error)

    thread = threading.Thread(target=follow, name="sandbox-starts", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(START_WINDOW_S + client.timeout)


def look_at_lease(lease: RunLease) -> RunnerLook:
    """The engine's word on the leased container: whether it runs, since when, with which first process.

    The container is looked up by the id the lease names; its id digest,
    start time and pid are the engine's, so a product that swapped the
    container under an unchanged lease shows as another runner.
    """
    looked_for = f"lease {lease.digest[:12]}"
    try:
        found = _engine().inspect(lease.sandbox_id)
    except NotFound:
        return RunnerLook(source="engine", looked_for=looked_for, alive=False)
    state = found.get("State") or {}
    return RunnerLook(
        source="engine",
        looked_for=looked_for,
        alive=bool(state.get("Running")),
        pid=state.get("Pid") or None,
        started=state.get("StartedAt"),
        sandbox_sha256=hashlib.sha256(str(found.get("Id", "")).encode()).hexdigest(),
    )


def lease_members(lease: RunLease) -> list[int]:
    """The host pids of the processes still running in the leased container (none once it stopped or went)."""
    return _engine().top(lease.sandbox_id)
