"""A sandboxed agent CLI run's metering proxy: on the host, in a process of its own, on a socket only its sandbox sees.

An agent CLI reaches its model only through its run's metering proxy, which
holds the real key and the budget. In a sandbox the proxy stays outside,
with the agent's path to it one Unix socket: the controller starts
``python -m harness.testbed.sandbox.meters`` for the run (:meth:`Meters.start`) on
``/tmp/ee-model-<data digest>/run-<id>/model.sock``, and that run's
container gets that folder, read-only, at :data:`MOUNT_POINT` (no other
run's socket, no network). The process is in its own session, like a local
runner, so a controller restart leaves it serving; it ends when the run has
ended (it asks the agent API), or when the controller releases the run's
sandbox (:meth:`Meters.end`), whichever comes first.
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil

from harness.agents.client import AgentClient, RunEnded
from harness.agents.environment import minimal_environment
from harness.agents.launch import end_group
from harness.agents.meter import serve_on_socket
from harness.agents.metering.providers import OPERATOR_VARIABLES
from harness.agents.registry import cli
from harness.agents.session import AgentSession

from ..supervisor import RunnerSpec
from .agent_socket import data_digest

log = logging.getLogger("testbed.sandbox")

MOUNT_POINT = "/run/model"
"""Where a run's metering socket folder appears inside its container."""
SOCKET_NAME = "model.sock"
MODULE = "harness.testbed.sandbox.meters"
START_TIMEOUT_S = 30.0
RUN_ENDED_POLL_S = 5.0
END_GRACE_S = 1.0
"""Its sandbox is gone when it is ended, and the runner's last read flushed its reports: it is given little time
(the controller's scheduler waits for it)."""


def root(data_dir: Path) -> Path:
    """The folder of a data folder's metering sockets (short: a socket's path has at most 107 bytes)."""
    return Path("/tmp") / f"ee-model-{data_digest(data_dir)[:16]}"


def folder(data_dir: Path, run_id: int) -> Path:
    """The one run's socket folder: what its container is given."""
    return root(data_dir) / f"run-{run_id}"


class MeterError(OSError):
    """The run's metering proxy did not come up: the run ends ``spawn_failed``."""


class Meters:
    """The controller's side: start a run's metering process, end it with the run's sandbox."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self._children: dict[int, subprocess.Popen[bytes]] = {}

    def start(self, spec: RunnerSpec) -> Path:
        """Start the run's metering process; its socket folder once the socket is served."""
        where = folder(self.data_dir, spec.run_id)
        shutil.rmtree(where, ignore_errors=True)
        where.mkdir(parents=True, mode=0o755)
        os.chmod(where.parent, 0o755)
        keys = {name: os.environ[name] for name in OPERATOR_VARIABLES if os.environ.get(name)}
        command = [
            sys.executable,
            "-m",
            MODULE,
            f"--data={self.data_dir}",
            f"--run-id={spec.run_id}",
            f"--adapter={spec.adapter}",
            f"--controller={spec.controller_url}",
            *([f"--model-upstream={spec.model_upstream}"] if spec.model_upstream else []),
        ]
        log_path = spec.log_path.with_suffix(".meter.log")
        with open(log_path, "ab") as output:
            process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
                env=minimal_environment(TESTBED_RUN_TOKEN=spec.token, **keys),
                start_new_session=True,
            )
        self._children[process.pid] = process
        deadline = time.monotonic() + START_TIMEOUT_S
        while not (where / SOCKET_NAME).exists():
            if process.poll() is not None or time.monotonic() > deadline:
                self._end(process.pid)
                raise MeterError(f"the run's metering proxy did not start (see {log_path.name})")
            time.sleep(0.05)
        return where

    def end(self, run_id: int) -> None:
        """End the run's metering process (this controller's child or a predecessor's) and remove its socket."""
        marks = (MODULE, f"--data={self.data_dir}", f"--run-id={run_id}")
        for process in psutil.process_iter(["pid", "cmdline"]):
            try:
                cmdline = process.info["cmdline"] or []
            except psutil.Error:
                continue
            if all(mark in cmdline for mark in marks):
                self._end(process.info["pid"])
        shutil.rmtree(folder(self.data_dir, run_id), ignore_errors=True)

    def _end(self, pid: int) -> None:
        end_group(pid, grace_seconds=END_GRACE_S)
        child = self._children.pop(pid, None)
        if child is not None:
            child.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=f"python -m {MODULE}", description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--run-id", type=int, required=True)
    parser.add_argument("--adapter", required=True)
    parser.add_argument("--controller", required=True)
    parser.add_argument("--model-upstream", default=None)
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO, stream=sys.stdout, format="%(asctime)s %(process)d %(name)s %(levelname)s %(message)s"
    )
    token = os.environ.pop("TESTBED_RUN_TOKEN", "")
    provider_keys = {name: os.environ.pop(name) for name in OPERATOR_VARIABLES if name in os.environ}
    client = AgentClient(args.controller, args.run_id, token)
    ended = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: ended.set())
    try:
        budget = client.context().get("budget_remaining_cents")
    except RunEnded:
        return 0
    session = AgentSession(
        client=client,
        workspace=Path("/nonexistent"),  # the workspace is in the sandbox; the proxy never touches it
        model="",
        pace=0.0,
        run_id=args.run_id,
        token=token,
        model_upstream=args.model_upstream,
        provider_keys=provider_keys,
        budget_cents=budget,
    )

    def until_run_ended() -> None:
        while not ended.wait(RUN_ENDED_POLL_S):
            try:
                client.context()
            except RunEnded:
                log.info("run %s has ended: its metering proxy closes", args.run_id)
                ended.set()

    threading.Thread(target=until_run_ended, daemon=True, name="run-ended").start()
    serve_on_socket(session, cli(args.adapter), folder(args.data, args.run_id) / SOCKET_NAME, ended)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
