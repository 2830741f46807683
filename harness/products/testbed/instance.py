"""An isolated testbed instance: own data folder, free port, own controller and runners.

A context manager, so the controller, every runner process group and any
stray helper are gone afterwards, on failure and on Ctrl-C too. The
controller is a fork of a parent that has imported the testbed already (see
``forked``), known by its pid; every runner and helper names the data folder
on its command line (runner ``--workspace``, helpers their workspace), which
is how teardown finds them even after the controller that spawned them was
killed.
"""

from __future__ import annotations

import atexit
import shutil
import signal
import tempfile
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

import httpx
import psutil

from harness.agents import issued_secrets
from harness.core.product_records import RunIdentity
from harness.core.runner_look import RunnerLook
from harness.core.sandbox_config import ContainerConfig
from harness.products.base import InstanceError
from harness.products.processes import (
    free_port,
    group_members_left,
    kill_groups,
    look_at_runner_process,
    marked_processes,
    process_alive,
    process_group_alive,
    stop_process,
)

from . import sandbox as sandboxes
from .api import ApiClient
from .forked import ForkedController
from .promises import DRAIN

HEALTH_POLL_S = 0.01
DATA_PREFIX = "testbed-"
"""An instance's own data folder's name starts so, in the run's folder (its TMPDIR)."""


class TestbedInstance:
    __test__ = False  # not a pytest test class, despite the name

    def __init__(
        self,
        data_dir: Path | None = None,
        port: int | None = None,
        pace: float = 0.05,
        keep_data: bool = False,
        startup_timeout: float = 30.0,
        defects: Sequence[str] = (),
        model_upstream: str | None = None,
        agent_time_limit_s: float | None = None,
        sandbox: Literal["process", "container"] = "process",
    ) -> None:
        """``defects`` (calibration only) are product defects the controller switches on, at every start;
        ``sandbox`` is where its runners execute (``container``: each in its own container, see
        :mod:`harness.products.testbed.sandbox`)."""
        self._owns_data = data_dir is None
        self.data_dir = (data_dir or Path(tempfile.mkdtemp(prefix=DATA_PREFIX))).resolve()
        self.port = port or free_port()
        self.pace = pace
        self.keep_data = keep_data or not self._owns_data
        self.startup_timeout = startup_timeout
        self.defects = tuple(defects)
        self.model_upstream = model_upstream  # the replay server for replay profiles: live agents' model calls go there
        self.agent_time_limit_s = agent_time_limit_s
        self.sandbox = sandbox
        self._runner_image: str | None = None
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.process: ForkedController | None = None
        self._api: ApiClient | None = None
        self._closed = False
        atexit.register(self.close)

    # ---- paths ------------------------------------------------------------------

    @property
    def log_dir(self) -> Path:
        return self.data_dir / "logs"

    @property
    def controller_log(self) -> Path:
        return self.log_dir / "controller.log"

    def log_paths(self) -> list[Path]:
        """Controller log, its stdout, and one log per run."""
        return sorted(self.log_dir.glob("*.log")) if self.log_dir.exists() else []

    @property
    def agent_workspaces(self) -> Path:
        return self.data_dir / "workspaces"

    @property
    def issued_secrets_file(self) -> Path:
        """Where the controller lists the run tokens it mints (outside the logs the package keeps)."""
        return self.data_dir / issued_secrets.LEDGER_NAME

    def issued_secrets(self) -> dict[str, str]:
        """Every run token this instance minted and its metering proxy key: values the evidence must never hold."""
        return issued_secrets.read(self.issued_secrets_file)

    def workspace(self, task_id: int) -> Path:
        return self.data_dir / "workspaces" / f"task-{task_id}"

    @property
    def api(self) -> ApiClient:
        if self._api is None:
            self._api = ApiClient(self.base_url)
        return self._api

    @property
    def controller_pid(self) -> int | None:
        return None if self.process is None else self.process.pid

    # ---- lifecycle --------------------------------------------------------------

    def start(self) -> TestbedInstance:
        if self.process is not None and self.process.poll() is None:
            raise InstanceError("controller already running")
        self.log_dir.mkdir(parents=True, exist_ok=True)
        argv = [
            "serve",
            "--data",
            str(self.data_dir),
            "--port",
            str(self.port),
            "--pace",
            str(self.pace),
            f"--issued-secrets={self.issued_secrets_file}",
        ]
        argv += [f"--defect={name}" for name in self.defects]  # again on every restart
        if self.model_upstream:
            argv.append(f"--model-upstream={self.model_upstream}")
        if self.agent_time_limit_s:
            argv.append(f"--agent-time-limit={self.agent_time_limit_s}")
        if self.sandbox == "container":
            self._runner_image = self._runner_image or sandboxes.prepare_image()
            argv += ["--sandbox=container", f"--runner-image={self._runner_image}"]
        self.process = ForkedController(argv, cwd=self.data_dir, log=self.log_dir / "controller.stdout.log")
        self._wait_healthy()
        return self

    def _wait_healthy(self) -> None:
        """Poll the health route through the instance's own client.

        One client for every poll: a fresh ``httpx.get`` builds a TLS context
        each time (20 ms of CPU), taken from the controller importing its
        modules on the same two cores. A look at a port nobody listens on yet
        is refused at once, so looking often costs little, and the attempt
        waits no longer than the start itself.
        """
        assert self.process is not None
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise InstanceError(f"controller exited with {self.process.returncode}: {self._log_tail()}")
            try:
                if self.api.http.get("/api/health", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(HEALTH_POLL_S)
        raise InstanceError(f"controller not healthy after {self.startup_timeout} s: {self._log_tail()}")

    def _log_tail(self) -> str:
        path = self.log_dir / "controller.stdout.log"
        return path.read_text(errors="replace")[-2000:] if path.exists() else "(no log)"

    def stop_controller(self, sig: signal.Signals = signal.SIGTERM, timeout: float = 15.0) -> None:
        """Stop only the controller; its runners keep going in their own sessions."""
        stop_process(self.process, sig, timeout, "controller")

    def restart(self, sig: signal.Signals = signal.SIGTERM) -> None:
        """Stop the controller with ``sig`` (SIGTERM or SIGKILL) and start it again on the same port and data."""
        self.stop_controller(sig)
        self.start()

    def processes(self) -> list[psutil.Process]:
        """Every live process this instance started: controller, runners, their helpers.

        Runners and helpers name the data folder on their command line; the
        controller, a fork, carries its parent's, so it is found by its pid.
        """
        found = marked_processes(str(self.data_dir))
        if self.process is not None and self.process.poll() is None:
            try:
                found.append(psutil.Process(self.process.pid))
            except psutil.Error:
                pass
        return found

    process_alive = staticmethod(process_alive)
    process_group_alive = staticmethod(process_group_alive)

    # ---- the drain it promises (promises.DRAIN) ------------------------------------

    drain_promise = DRAIN.id
    drain_recovery_s = 0.0  # the drain queues its retry before the controller exits: nothing to wait for
    drain_mechanism = "the testbed's drain request (POST /api/controller/drain), then SIGTERM to the controller"

    def request_drain(self) -> None:
        """Ask the running controller to drain at its next shutdown (a plain SIGTERM keeps its runners going)."""
        try:
            self.api.http.post("/api/controller/drain", timeout=10).raise_for_status()
        except httpx.HTTPError as error:
            raise InstanceError(f"the controller did not take the drain request: {error}") from None

    def close(self) -> None:
        """Tear everything down; safe to call more than once."""
        if self._closed:
            return
        self._closed = True
        try:
            self.stop_controller(signal.SIGTERM, timeout=10)
        except InstanceError:
            pass
        self._kill_leftovers()
        if self._api is not None:
            self._api.close()
        if not self.keep_data:
            shutil.rmtree(self.data_dir, ignore_errors=True)

    def _kill_leftovers(self) -> None:
        kill_groups(self.processes())
        if self.sandbox == "container":
            sandboxes.remove_all(self.data_dir)

    def containers(self) -> list[dict[str, Any]]:
        """Every runner container of this instance on the engine, running or not (empty for local runners)."""
        return sandboxes.containers(self.data_dir) if self.sandbox == "container" else []

    def sandbox_config(self, sandbox_id: str) -> ContainerConfig | None:
        """The engine's record of the sandbox, as containment reads it (None: gone already)."""
        return sandboxes.configuration(sandbox_id)

    def following_sandboxes(self, started: Callable[[str], None]) -> AbstractContextManager[None]:
        """Inside, ``started`` gets the id of each sandbox of the instance as the engine starts it (none for local
        runners)."""
        return sandboxes.following_starts(self.data_dir, started) if self.sandbox == "container" else nullcontext()

    def runner_alive(self, identity: RunIdentity) -> bool:
        """The run's runner still runs, by the harness's own look: its leased container, else its process."""
        if identity.lease is not None:
            return sandboxes.lease_alive(identity.lease)
        return bool(identity.pid) and process_alive(identity.pid or 0, identity.process_start_time or 0)

    def look_at_runner(self, identity: RunIdentity) -> RunnerLook:
        """The harness's own look at the run's runner: its leased container on the engine, else the process table."""
        if identity.lease is not None:
            return sandboxes.look_at_lease(identity.lease)
        return look_at_runner_process(identity)

    def members_left(self, identity: RunIdentity, before: RunnerLook) -> list[int]:
        """What still runs of the runner the harness saw in ``before``: its container's processes, else its group's."""
        if identity.lease is not None:
            return sandboxes.lease_members(identity.lease)
        return group_members_left(before)

    def __enter__(self) -> TestbedInstance:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
