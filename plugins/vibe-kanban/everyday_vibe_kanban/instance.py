"""An isolated vibe-kanban instance: own home (its database and profiles), port, repository and agents.

The server binary is started directly (the npm launcher's node -> sh ->
binary chain leaves the binary running when node is stopped). vibe-kanban
writes each attempt's worktree under the system's long-lived temporary
folder (``/var/tmp/vibe-kanban/worktrees``), outside its home whatever
``HOME`` or ``TMPDIR`` say; teardown removes the worktrees of this
instance's attempts, read from its API before the server stops. Every agent
process names the instance folder on its command line (``--instance``),
which is how teardown finds one that outlived the server.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import psutil

from everyday_vibe_kanban import install
from everyday_vibe_kanban.api import VibeKanbanApi
from harness.products.base import InstanceError
from harness.products.http import ProductApiError
from harness.products.processes import free_port, kill_groups, marked_processes, process_group_alive, stop_process
from harness.products.processes import process_alive as _process_alive
from harness.products.records import Controller

PROJECT_NAME = "Everyday Evals"
START_TIMEOUT_S = 120.0
GIT_IDENTITY = "[user]\n\tname = Everyday Evals\n\temail = everyday-evals@localhost\n"


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


class VibeKanbanInstance:
    __test__ = False

    def __init__(self, pace: float) -> None:
        self.pace = pace
        self.root = Path(tempfile.mkdtemp(prefix="everyday-vibe-kanban-"))
        self.data_dir = self.root
        self.home = self.root / "home"
        self.repo = self.root / "repo"
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None
        self.started_s: float | None = None
        self._api: VibeKanbanApi | None = None
        self._worktrees: set[Path] = set()
        self._closed = False

    # ---- what the story reads -----------------------------------------------------

    @property
    def api(self) -> VibeKanbanApi:
        if self._api is None:
            raise InstanceError("the vibe-kanban instance is not started")
        return self._api

    @property
    def agent_workspaces(self) -> Path:
        """The seeded repository: every attempt's branch, and so every delivered file, is in it."""
        return self.repo

    def issued_secrets(self) -> dict[str, str]:
        """vibe-kanban hands out no tokens: it runs its agents on this machine without credentials."""
        return {}

    def log_paths(self) -> list[Path]:
        return [self.root / "server.log"]

    def process_alive(self, pid: int, start_time: float) -> bool:
        return _process_alive(pid, start_time)

    def process_group_alive(self, pgid: int) -> bool:
        return process_group_alive(pgid)

    def agent_command(self, model: str) -> str:
        """The command a hired agent's profile runs in place of Claude Code (this Python, our agent module)."""
        return shlex.join(
            [
                sys.executable,
                "-m",
                "everyday_vibe_kanban.claude_agent",
                "--model",
                model,
                "--pace",
                str(self.pace),
                "--instance",
                str(self.root),
            ]
        )

    def _controller(self) -> Controller:
        if self.process is None or self.process.poll() is not None:
            raise ProductApiError("the vibe-kanban server is not running")
        started = psutil.Process(self.process.pid).create_time()
        return Controller(instance_id=f"{self.process.pid}-{started:.3f}", pid=self.process.pid)

    # ---- life -----------------------------------------------------------------------

    def _seed(self) -> None:
        """A fresh repository with one empty commit on ``main``, and a home whose git identity commits for the agent."""
        self.home.mkdir(parents=True, exist_ok=True)
        (self.root / "tmp").mkdir(exist_ok=True)
        (self.home / ".gitconfig").write_text(GIT_IDENTITY)
        self.repo.mkdir()
        _git(self.repo, "init", "-q", "-b", "main")
        _git(
            self.repo,
            "-c",
            "user.name=Everyday Evals",
            "-c",
            "user.email=everyday-evals@localhost",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "Start",
        )

    def _environment(self) -> dict[str, str]:
        """A cleared environment: nothing of the harness's reaches vibe-kanban or its agents."""
        return {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "LANG": "C.UTF-8",
            "HOME": str(self.home),
            "TMPDIR": str(self.root / "tmp"),
            "PORT": str(self.port),
            "HOST": "127.0.0.1",
            "BROWSER": "true",
            "PYTHONDONTWRITEBYTECODE": "1",
        }

    def start(self) -> VibeKanbanInstance:
        """Start the server, wait for ``/api/health``, answer the first-run questions and create the project."""
        binary = install.require_installed()
        if not self.repo.exists():
            self._seed()
        began = time.monotonic()
        with (self.root / "server.log").open("ab") as log:
            self.process = subprocess.Popen(
                [str(binary)],
                cwd=self.root,
                env=self._environment(),
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self._wait_healthy(began)
        self.started_s = time.monotonic() - began
        if self._api is None:
            self._api = VibeKanbanApi(self.base_url, self.repo, self.agent_command, self._controller)
            self._api.acknowledge_first_run()
            self._api.create_project(PROJECT_NAME)
        return self

    def _wait_healthy(self, began: float) -> None:
        while time.monotonic() - began < START_TIMEOUT_S:
            if self.process is not None and self.process.poll() is not None:
                raise InstanceError(
                    f"vibe-kanban exited with {self.process.returncode} at start; see {self.root / 'server.log'}"
                )
            try:
                if httpx.get(f"{self.base_url}/api/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)  # polling for the server to answer, not pacing a story
        raise InstanceError(f"vibe-kanban did not answer /api/health within {START_TIMEOUT_S:.0f} s")

    def _remember_worktrees(self) -> None:
        if self._api is None or self.process is None or self.process.poll() is not None:
            return
        try:
            for task in self._api.tasks():
                for attempt in self._api.attempts(task.id):
                    if attempt.get("container_ref"):
                        self._worktrees.add(Path(attempt["container_ref"]))
        except ProductApiError:
            pass  # a server that no longer answers: the worktrees found so far are removed

    def stop_controller(self, sig: signal.Signals = signal.SIGTERM) -> None:
        """Stop the server only (its agents are its children and may outlive it)."""
        self._remember_worktrees()
        stop_process(self.process, sig, 20.0, "vibe-kanban")

    def close(self) -> None:
        """Stop the server and every agent it started, remove this instance's worktrees and folder; idempotent."""
        if self._closed:
            return
        self._closed = True
        self._remember_worktrees()
        if self._api is not None:
            self._api.close()
        if self.process is not None and self.process.poll() is None:
            children = psutil.Process(self.process.pid).children(recursive=True)
            try:
                stop_process(self.process, signal.SIGTERM, 20.0, "vibe-kanban")
            except InstanceError:
                pass  # killed instead: teardown goes on
            kill_groups([c for c in children if c.is_running()])
        kill_groups(marked_processes(str(self.root), with_children=True))
        for worktree in self._worktrees:
            shutil.rmtree(worktree, ignore_errors=True)
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> VibeKanbanInstance:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
