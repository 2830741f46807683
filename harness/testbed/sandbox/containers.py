"""Runners in containers: start one per run through the engine, watch its lease, stop it, bring its workspace back.

The counterpart of :class:`harness.testbed.supervisor.Supervisor` for the container
environment; the controller calls the same moments of a runner's life on it.
Every container carries labels naming its runner instance and the data
folder it serves (hashed), so a controller that died before recording a
lease finds its runner, and a harness that tears an instance down finds
every container of it.
"""

from __future__ import annotations

import io
import logging
import tarfile
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from harness.agents.adapters import SCRIPTED
from harness.agents.install import MissingCli, agents_dir, locate
from oracle.engine import Engine, EngineError, NotFound
from oracle.image import CannotGrade, engine

from ..db import Database
from ..failpoints import failpoint
from ..models import RunLease
from ..supervisor import RunnerSpec, runner_command
from . import image, leases, meters
from .agent_socket import MOUNT_POINT, SOCKET_NAME, data_digest, socket_folder

log = logging.getLogger("testbed.sandbox")

LABEL = "everyday-evals.runner"
LABEL_INSTANCE = "everyday-evals.runner.instance"
LABEL_DATA = "everyday-evals.runner.data"
VOLUME = "/sandbox"
WORKSPACE = f"{VOLUME}/workspace"
USER_ID = 65534
STOP_GRACE_S = 3
HUNG_GRACE_S = 30.0
"""How long a runner may go on after its run ended before its container is stopped and its lease released."""
LOG_LIMIT = 4 << 20
CONTROLLER_INSIDE = "http://controller"
"""The agent API's address inside the sandbox: any host name; the socket carries it (``--controller-socket``)."""
AGENTS_MOUNT = "/opt/agents"
"""Where the agent CLIs' install (``make agents``) appears, read-only, inside an agent CLI run's container."""
READ_ONLY_MOUNTS = (MOUNT_POINT, meters.MOUNT_POINT, AGENTS_MOUNT)
"""Every bind mount a runner's container may have, each read-only: the agent socket's folder, the run's metering
socket's folder and the agent CLIs' programs. Anything else it is given reaches beyond the controller's API."""
RUNNER_ENV = ("TESTBED_RUN_TOKEN", "HOME", "LC_ALL", "PYTHONPATH", "EVERYDAY_AGENTS_DIR")
"""Every variable a runner's container is given beyond its image's: nothing of the host's environment."""


class SandboxError(OSError):
    """The engine would not start a runner's sandbox: the run ends ``spawn_failed``, like a failed local spawn."""


def data_label(data_dir: Path) -> str:
    """The label value naming a data folder's containers (a digest: a path says more than the engine needs)."""
    return data_digest(data_dir)[:32]


def read_only(source: Path, target: str) -> dict[str, Any]:
    return {"Type": "bind", "Source": str(source), "Target": target, "ReadOnly": True}


def hardening(data_dir: Path, *mounts: dict[str, Any]) -> dict[str, Any]:
    """The oracle's container hardening, with what a runner needs on top: a workspace volume, a larger /tmp it may
    execute from (an agent's tools), the folder of the controller's agent socket, read-only, and ``mounts`` (an
    agent CLI's: :meth:`ContainerRunners._cli_mounts`). The engine's init is the container's first process, so Stop's SIGTERM reaches
    the runner as it would on a host (a first process ignores a signal it has no handler for)."""
    return {
        "Init": True,
        "NetworkMode": "none",
        "ReadonlyRootfs": True,
        "CapDrop": ["ALL"],
        "SecurityOpt": ["no-new-privileges"],
        "PidsLimit": 256,
        "Memory": 1 << 30,
        "MemorySwap": 1 << 30,
        "NanoCpus": 1_000_000_000,
        "IpcMode": "none",
        "Tmpfs": {"/tmp": "rw,nosuid,nodev,size=64m,mode=1777"},
        "Ulimits": [{"Name": "nofile", "Soft": 1024, "Hard": 1024}, {"Name": "core", "Soft": 0, "Hard": 0}],
        "Mounts": [
            {"Type": "volume", "Target": VOLUME, "VolumeOptions": {"Labels": {LABEL: "1"}}},
            read_only(socket_folder(data_dir), MOUNT_POINT),
            *mounts,
        ],
        "LogConfig": {"Type": "json-file", "Config": {"max-size": "8m", "max-file": "1"}},
    }


def workspace_tar(folder: Path) -> bytes:
    """The task's workspace as a tar under ``workspace/``, owned by the runner's user (nobody)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:

        def owned(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
            if not (info.isfile() or info.isdir()):
                return None  # a link in a workspace is not carried into the sandbox
            info.uid = info.gid = USER_ID
            info.uname = info.gname = ""
            return info

        archive.add(str(folder), arcname="workspace", filter=owned)
    return buffer.getvalue()


def extract(tar: bytes, staging: Path) -> Path:
    """The sandbox's workspace (a ``get_archive`` of it) unpacked under ``staging``: regular files and folders only,
    nothing outside."""
    with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
        members = [m for m in archive.getmembers() if m.isfile() or m.isdir()]
        archive.extractall(staging, members=members, filter="data")
    return staging / "workspace"


def bring_back(tar: bytes, folder: Path) -> None:
    """Replace the task's workspace with the sandbox's copy: two renames, so a reader of the folder meets the old
    files, the new ones or (between the renames) no folder, never a folder half removed."""
    with tempfile.TemporaryDirectory(prefix=".returning-", dir=folder.parent, ignore_cleanup_errors=True) as staging:
        returned = extract(tar, Path(staging))
        if folder.exists():
            folder.rename(Path(staging) / "leaving")
        returned.rename(folder)


class ContainerRunners:
    """One container per run, on the engine DOCKER_HOST names (this machine's by default)."""

    def __init__(
        self, db: Database, data_dir: Path, image_reference: str | None = None, hung_grace_s: float = HUNG_GRACE_S
    ) -> None:
        try:
            self.client: Engine = engine()
        except CannotGrade as error:
            raise SandboxError(f"no engine for the sandboxes: {error}") from None
        self.db = db
        self.data_dir = data_dir
        self.image_reference = image_reference
        self.image = image.ensure(self.client, image_reference)
        self.label = data_label(data_dir)
        self.hung_grace_s = hung_grace_s
        self._spawned: set[str] = set()
        self.meters = meters.Meters(data_dir)
        self._releasing = threading.Lock()  # Stop (a request) and the scheduler's monitor both release leases

    def spawn(self, spec: RunnerSpec) -> RunLease:
        """Create the hardened container, copy the workspace in, start it; its lease. An agent CLI's run also gets
        its metering proxy, started on the host, and the CLIs' programs."""
        env = [f"TESTBED_RUN_TOKEN={spec.token}", "HOME=/tmp", "LC_ALL=C.UTF-8", f"PYTHONPATH={image.CODE_ROOT}"]
        extra = [f"--controller-socket={MOUNT_POINT}/{SOCKET_NAME}"]
        mounts: list[dict[str, Any]] = []
        if spec.adapter != SCRIPTED:
            mounts = self._cli_mounts(spec)
            env.append(f"EVERYDAY_AGENTS_DIR={AGENTS_MOUNT}")
            extra.append(f"--model-socket={meters.MOUNT_POINT}/{meters.SOCKET_NAME}")
        command = runner_command(spec, WORKSPACE, *extra)
        command[command.index(f"--controller={spec.controller_url}")] = f"--controller={CONTROLLER_INSIDE}"
        config = {
            "Image": self.image.id,
            "Cmd": ["python3", *command],
            "User": f"{USER_ID}:{USER_ID}",
            "Env": env,
            "WorkingDir": WORKSPACE,
            "Labels": {LABEL: "1", LABEL_INSTANCE: spec.runner_instance_id, LABEL_DATA: self.label},
            "HostConfig": failpoint("sandbox.host-config", hardening(self.data_dir, *mounts), data_dir=self.data_dir),
        }
        spec.workspace.mkdir(parents=True, exist_ok=True)
        container_id = ""
        try:
            container_id = self._create(config)
            self.client.put_archive(container_id, VOLUME, workspace_tar(spec.workspace))
            self.client.start(container_id)
            started = self.client.inspect(container_id)["State"]["StartedAt"]
        except (EngineError, image.RunnerImageError) as error:
            if container_id:
                self._remove(container_id)
            self.meters.end(spec.run_id)
            reason = error.explanation if isinstance(error, EngineError) else error
            raise SandboxError(f"the engine did not start the runner's sandbox: {reason}") from None
        self._spawned.add(container_id)
        return RunLease(sandbox="container", sandbox_id=container_id, started_at=started, image_digest=self.image.id)

    def _cli_mounts(self, spec: RunnerSpec) -> list[dict[str, Any]]:
        """The run's metering socket folder (its proxy started now) and the CLIs' install, both read-only."""
        try:
            locate(spec.adapter)
        except MissingCli as error:
            raise SandboxError(str(error)) from None
        socket = self.meters.start(spec)
        return [read_only(socket, meters.MOUNT_POINT), read_only(agents_dir().resolve(), AGENTS_MOUNT)]

    def _create(self, config: dict[str, Any]) -> str:
        """Create the container; if its image is gone (a newer build elsewhere removed it while no container used
        it), have the image again and create once more."""
        try:
            return self.client.create(config)
        except NotFound:
            try:
                self.image = image.ensure(self.client, self.image_reference)
            except image.RunnerImageError:
                self.image = image.ensure(self.client)  # the prepared image went away: this code's own
            return self.client.create({**config, "Image": self.image.id})

    @contextmanager
    def workspace_now(self, lease: RunLease) -> Iterator[Path]:
        """A copy of the leased sandbox's workspace as it is now (what a tool acting for the run, such as
        ``deliver``, reads), removed after use; OSError when the engine cannot give it."""
        try:
            tar = self.client.get_archive(lease.sandbox_id, WORKSPACE)
        except EngineError as error:
            raise SandboxError(f"the run's sandbox workspace could not be read: {error.explanation}") from None
        with tempfile.TemporaryDirectory(prefix="sandbox-workspace-") as staging:
            yield extract(tar, Path(staging))

    def find(self, runner_instance_id: str) -> RunLease | None:
        """The live container started for this runner instance (a controller that died before recording it)."""
        for summary in self.client.containers(f"{LABEL_INSTANCE}={runner_instance_id}"):
            try:
                found = self.client.inspect(summary["Id"])
            except NotFound:
                continue
            if found["State"]["Running"]:
                return RunLease(
                    sandbox="container",
                    sandbox_id=found["Id"],
                    started_at=found["State"]["StartedAt"],
                    image_digest=found["Image"],
                )
        return None

    def spawned(self, lease: RunLease) -> bool:
        """True for a sandbox this controller started (rather than re-adopted)."""
        return lease.sandbox_id in self._spawned

    def _state(self, lease: RunLease) -> dict[str, Any] | None:
        """The container's state, None once it is gone; a restarted container (another start time) is not ours."""
        try:
            state: dict[str, Any] = self.client.inspect(lease.sandbox_id)["State"]
        except NotFound:
            return None
        return state if state.get("StartedAt") == lease.started_at else None

    def is_alive(self, lease: RunLease) -> bool:
        """True while the leased container runs, with the start time the lease records.

        An engine that does not answer is not a runner that died: the run is kept until it answers again.
        """
        try:
            state = self._state(lease)
        except EngineError as error:
            log.warning("engine did not answer about run sandbox: %s", error.explanation)
            return True
        return bool(state and state.get("Running"))

    def exit_code(self, lease: RunLease) -> int | None:
        state = self._state(lease)
        return None if state is None or state.get("Running") else int(state.get("ExitCode", -1))

    def stop(self, lease: RunLease) -> bool:
        """Stop the container (SIGTERM, SIGKILL after the grace); True once nothing of it runs."""
        try:
            self.client.stop(lease.sandbox_id, STOP_GRACE_S)
        except NotFound:
            return True
        return not self.is_alive(lease)

    def release(self, run_id: int, lease: RunLease, workspace: Path, log_path: Path) -> None:
        """After the run: bring the workspace back, keep the runner's log, remove the container, record it released."""
        returned = False
        try:
            tar = self.client.get_archive(lease.sandbox_id, WORKSPACE)
            if failpoint("sandbox.bring-back", True, run_id=run_id):
                bring_back(tar, workspace)
                returned = True
            log_path.parent.mkdir(parents=True, exist_ok=True)
            with log_path.open("ab") as kept:
                kept.write(self.client.logs(lease.sandbox_id, stdout=True, limit=LOG_LIMIT))
        except EngineError as error:
            log.warning("run %s: its sandbox could not be read back: %s", run_id, error.explanation)
        gone = failpoint("sandbox.remove", self._remove)(lease.sandbox_id)
        self.meters.end(run_id)
        if failpoint("sandbox.release", True, run_id=run_id):
            leases.released(self.db, run_id, gone=gone, workspace_returned=returned)
        log.info("run %s: sandbox released (workspace returned: %s, removed: %s)", run_id, returned, gone)

    def _hung(self, ended_at: str | None) -> bool:
        """True once the grace after the run's end has passed."""
        if ended_at is None:
            return False
        over = datetime.now(UTC) - datetime.fromisoformat(ended_at) > timedelta(seconds=self.hung_grace_s)
        if over:
            log.warning(
                "a runner still ran %ss after its run ended (%s): its sandbox is stopped", self.hung_grace_s, ended_at
            )
        return over

    def _remove(self, container_id: str) -> bool:
        try:
            self.client.remove(container_id)
        except NotFound:
            pass
        try:
            self.client.inspect(container_id)
        except NotFound:
            return True
        return False

    def release_ended(self) -> None:
        """Release every lease whose run has ended and whose container has stopped (a finished runner exits); a
        runner still going ``hung_grace_s`` after its run ended is hung: its container is stopped, then released."""
        with self._releasing:
            self._release_ended()

    def _release_ended(self) -> None:
        for row in leases.unreleased(self.db):
            if row["run_status"] in ("queued", "running"):
                continue
            lease = leases.lease_of(self.db.connection(), row["run_id"])
            assert lease is not None
            if self.is_alive(lease) and not (self._hung(row["run_ended_at"]) and self.stop(lease)):
                continue
            run = self.db.one("SELECT log_path FROM runs WHERE id = ?", row["run_id"])
            workspace = self.data_dir / "workspaces" / f"task-{row['task_id']}"
            self.release(row["run_id"], lease, workspace, Path(run["log_path"]) if run else Path(""))
