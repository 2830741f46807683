"""Runner process supervision: spawn, identify, check liveness, stop.

Runners live in their own session (``start_new_session=True``) so a controller
that is stopped or killed leaves them running. A runner is identified by pid
plus the kernel's process start time, so a recycled pid is never mistaken for
a runner we started (or killed in its place).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import psutil

from harness.agents.environment import minimal_environment
from harness.agents.metering.providers import OPERATOR_VARIABLES

START_TIME_TOLERANCE = 0.05


@dataclass(frozen=True)
class RunnerSpec:
    """Everything a runner process needs; the token travels in the environment, never argv."""

    run_id: int
    controller_url: str
    token: str
    adapter: str
    model: str
    workspace: Path
    pace: float
    log_path: Path
    runner_instance_id: str
    model_upstream: str | None = None
    time_limit_s: float = 600.0


def runner_command(spec: RunnerSpec, workspace: str, *extra: str) -> list[str]:
    """The interpreter's arguments that start one runner, wherever it runs (``workspace`` as the runner sees it).

    option=value: a value (an agent's model, say) can never be read as another option.
    """
    return [
        "-m",
        "harness.testbed.runner",
        f"--controller={spec.controller_url}",
        f"--run-id={spec.run_id}",
        f"--adapter={spec.adapter}",
        f"--model={spec.model}",
        f"--workspace={workspace}",
        f"--pace={spec.pace}",
        f"--runner-instance-id={spec.runner_instance_id}",
        f"--time-limit={spec.time_limit_s}",
        *([f"--model-upstream={spec.model_upstream}"] if spec.model_upstream else []),
        *extra,
    ]


@dataclass(frozen=True)
class Identity:
    pid: int
    start_time: float


class Supervisor:
    """Keeps handles on runners this controller spawned (to reap them) and checks any runner by identity."""

    def __init__(self) -> None:
        self._children: dict[int, subprocess.Popen[bytes]] = {}

    def spawn(self, spec: RunnerSpec) -> Identity:
        spec.log_path.parent.mkdir(parents=True, exist_ok=True)
        spec.workspace.mkdir(parents=True, exist_ok=True)
        keys = {
            name: os.environ[name]
            for name in OPERATOR_VARIABLES  # to the runner in its environment (never argv), for its proxy only
            if os.environ.get(name) and spec.adapter != "scripted"
        }
        env = minimal_environment(TESTBED_RUN_TOKEN=spec.token, **keys)
        command = [sys.executable, *runner_command(spec, str(spec.workspace))]
        with open(spec.log_path, "ab") as log:
            process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=spec.workspace,
                env=env,
                start_new_session=True,
            )
        self._children[process.pid] = process
        return Identity(pid=process.pid, start_time=psutil.Process(process.pid).create_time())

    @staticmethod
    def find(runner_instance_id: str) -> Identity | None:
        """The live runner started with this instance id, found by its command line.

        A controller that dies between spawning a runner and recording its pid
        leaves the runner working; this is how the next controller finds it.
        """
        for process in psutil.process_iter(["pid", "cmdline", "status", "create_time"]):
            try:
                cmdline = process.info["cmdline"] or []
                if (
                    process.info["status"] != psutil.STATUS_ZOMBIE
                    and f"--runner-instance-id={runner_instance_id}" in cmdline
                ):
                    return Identity(pid=process.info["pid"], start_time=process.info["create_time"])
            except psutil.Error:
                continue
        return None

    def spawned(self, pid: int) -> bool:
        """True for a runner this controller instance started (rather than re-adopted)."""
        return pid in self._children

    def exit_code(self, pid: int) -> int | None:
        """Exit status of a runner this controller spawned, or None while running / not ours."""
        child = self._children.get(pid)
        return None if child is None else child.poll()

    def is_alive(self, identity: Identity) -> bool:
        """True when a live, non-zombie process with this pid and start time exists."""
        if self.exit_code(identity.pid) is not None:
            return False
        try:
            process = psutil.Process(identity.pid)
            if abs(process.create_time() - identity.start_time) > START_TIME_TOLERANCE:
                return False
            return process.status() != psutil.STATUS_ZOMBIE
        except psutil.Error:
            return False

    def group_alive(self, pgid: int) -> bool:
        """True while any process (zombies of our own children aside) is still in the runner's group or session.

        The runner leads both; a live agent CLI runs as its own process group
        inside the runner's session, so "the group" a Stop must end is the session.
        """
        self.exit_code(pgid)
        return bool(self._members(pgid))

    @staticmethod
    def _members(pgid: int) -> list[int]:
        members = []
        for process in psutil.process_iter(["pid", "status"]):
            try:
                if (
                    pgid in (os.getpgid(process.pid), os.getsid(process.pid))
                    and process.info["status"] != psutil.STATUS_ZOMBIE
                ):
                    members.append(process.pid)
            except (ProcessLookupError, psutil.Error):
                continue
        return members

    def stop_group(self, identity: Identity, grace: float = 3.0) -> bool:
        """SIGTERM the runner's process group and session, SIGKILL what remains; True when all is gone.

        Only a group whose leader still matches the recorded identity is signalled:
        a dead runner's pid may belong to somebody else by now.
        """
        pgid = identity.pid
        if self.is_alive(identity):
            self._signal_group(pgid, signal.SIGTERM)
            deadline = time.monotonic() + grace
            while time.monotonic() < deadline and self.group_alive(pgid):
                time.sleep(0.05)
        if self.group_alive(pgid):
            self._signal_group(pgid, signal.SIGKILL)
            deadline = time.monotonic() + grace
            while time.monotonic() < deadline and self.group_alive(pgid):
                time.sleep(0.05)
        return not self.group_alive(pgid)

    def _signal_group(self, pgid: int, sig: signal.Signals) -> None:
        """The runner's group, then every other process of its session (an agent CLI's own group)."""
        try:
            os.killpg(pgid, sig)
        except (ProcessLookupError, PermissionError):
            pass
        for pid in self._members(pgid):
            try:
                os.kill(pid, sig)
            except (ProcessLookupError, PermissionError):
                pass
