"""How an agent CLI is launched: a private home, a cleared environment, a workspace, a deadline.

Each registered CLI (:mod:`harness.agents.clis`) turns a
:class:`LaunchRequest` into a :class:`LaunchSpec`: the exact argv,
environment and config files that were measured to work offline against the
metering proxy. :func:`run` executes a spec as its own process group and, at the
deadline, ends that whole group (the CLI and every tool it started).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel


class InstalledCli(BaseModel):
    """One located CLI: what provenance records about it, and what to execute."""

    name: str
    package: str
    version: str
    binary: Path


class McpServer(BaseModel):
    """The product's tool server as a CLI reaches it: streamable HTTP, the run's token as bearer."""

    name: str = "testbed"
    url: str
    token: str


class LaunchRequest(BaseModel):
    """What the runner knows about one agent run, whatever the CLI."""

    cli: InstalledCli
    workspace: Path
    home: Path  # private, fresh per run: config, sessions, caches all live under it
    prompt: str
    proxy_url: str  # the metering proxy, e.g. http://127.0.0.1:PORT
    proxy_key: str  # throwaway key the proxy accepts; never a provider key
    model: str
    timeout_seconds: float = 120.0
    resume_session: str | None = None  # continue this CLI session (same home) with `prompt` as the new message
    mcp: McpServer | None = None  # the product's tools; None runs the CLI with its own tools only


class LaunchSpec(BaseModel):
    argv: list[str]
    env: dict[str, str]
    cwd: Path
    files: dict[Path, str] = {}  # config files written before launch
    timeout_seconds: float


class RunOutcome(BaseModel):
    pid: int  # also its process group id: everything the CLI started
    exit_code: int | None
    timed_out: bool
    seconds: float
    stdout: str
    stderr: str


def first_json_field(stdout: str, field: str) -> str | None:
    """The first value of `field` in a CLI's JSON-lines output (how each names its session)."""
    for line in stdout.splitlines():
        if field in line and line.lstrip().startswith("{"):
            try:
                value = _find(json.loads(line), field)
            except ValueError:
                continue
            if value:
                return value
    return None


def _find(data: object, field: str) -> str | None:
    if isinstance(data, dict):
        if isinstance(data.get(field), str):
            return data[field]
        return next((found for value in data.values() if (found := _find(value, field))), None)
    if isinstance(data, list):
        return next((found for value in data if (found := _find(value, field))), None)
    return None


def base_env(home: Path) -> dict[str, str]:
    """The cleared environment every CLI starts from: nothing from the runner's own environment."""
    node = shutil.which("node")
    path = ["/usr/local/bin", "/usr/bin", "/bin"]
    if node and str(Path(node).parent) not in path:
        path.insert(0, str(Path(node).parent))
    tmp = home / "tmp"
    return {
        "PATH": ":".join(path),
        "HOME": str(home),
        "TMPDIR": str(tmp),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
    }


def prepare(spec: LaunchSpec) -> None:
    Path(spec.env["TMPDIR"]).mkdir(parents=True, exist_ok=True)
    spec.cwd.mkdir(parents=True, exist_ok=True)
    for path, text in spec.files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def start(spec: LaunchSpec, stdout: Any = subprocess.PIPE, stderr: Any = subprocess.PIPE) -> subprocess.Popen[str]:
    """Start the CLI as the leader of its own process group, inside the caller's session.

    Its own group lets the deadline end the CLI and every tool it started
    without touching the caller; staying in the caller's session lets the
    product's Stop (which ends a runner's whole session) reach it too.
    """
    prepare(spec)
    return subprocess.Popen(
        spec.argv,
        cwd=spec.cwd,
        env=spec.env,
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=stderr,
        text=True,
        process_group=0,
    )


def run(spec: LaunchSpec) -> RunOutcome:
    """Run to completion or to the deadline; the process group never outlives this call."""
    started = time.monotonic()
    process = start(spec)
    timed_out = False
    try:
        stdout, stderr = process.communicate(timeout=spec.timeout_seconds)
    except subprocess.TimeoutExpired:
        timed_out = True
        end_group(process.pid)
        stdout, stderr = process.communicate()
    finally:
        end_group(process.pid)  # tools the CLI left behind in its group
    return RunOutcome(
        pid=process.pid,
        exit_code=None if timed_out else process.returncode,
        timed_out=timed_out,
        seconds=time.monotonic() - started,
        stdout=stdout,
        stderr=stderr,
    )


def end_group(pgid: int, grace_seconds: float = 3.0) -> None:
    """SIGTERM the process group, then SIGKILL whatever is still there after a grace period."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + grace_seconds
        while time.monotonic() < deadline:
            try:
                os.killpg(pgid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.05)
