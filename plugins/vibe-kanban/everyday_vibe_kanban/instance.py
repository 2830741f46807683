"""An isolated vibe-kanban instance: own home (its database and profiles), port, repository and agents.

The server binary is started directly (the npm launcher's node -> sh ->
binary chain leaves the binary running when node is stopped). vibe-kanban
writes each attempt's worktree under the system's long-lived temporary
folder (``/var/tmp/vibe-kanban/worktrees``) whatever ``HOME`` or ``TMPDIR``
say, and at every start it deletes each worktree there that its own
database does not know ("orphaned"): a second instance on the machine
would delete the first one's worktrees under its running agent, and two
attempts whose ids share their first four hex digits would get the same
worktree path. So each instance runs in its own mount namespace, where
``/var/tmp/vibe-kanban`` is the instance's own folder (:data:`PRIVATE_TMP`
under its root): the product writes where it always does, and nothing of
one instance is seen by another. Paths the product reports are mapped back
to the instance's folder (:meth:`VibeKanbanInstance.on_disk`), and teardown
removes them with the rest of the instance. Every agent process names the
instance folder on its command line (``--instance``), which is how teardown
finds one that outlived the server.
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

from everyday_vibe_kanban import install, metering
from everyday_vibe_kanban.api import VibeKanbanApi
from harness.core.product_records import Controller, Spend
from harness.products.base import InstanceError
from harness.products.http import ProductApiError
from harness.products.processes import free_port, kill_groups, marked_processes, process_group_alive, stop_process
from harness.products.processes import process_alive as _process_alive

PROJECT_NAME = "Everyday Evals"
PRODUCT_TMP = Path("/var/tmp/vibe-kanban")  # where vibe-kanban keeps its worktrees, whatever its environment says
PRIVATE_TMP = "var-tmp-vibe-kanban"  # the instance's own folder mounted there, under the instance's root
START_TIMEOUT_S = 120.0
GIT_IDENTITY = "[user]\n\tname = Everyday Evals\n\temail = everyday-evals@localhost\n"


def _in_own_namespace(private_tmp: Path, binary: Path) -> list[str]:
    """The command starting ``binary`` in a new mount namespace where ``PRODUCT_TMP`` is ``private_tmp``.

    ``unshare`` and ``sh`` exec in place, so the process started is the server
    itself (its pid, its group). Without root a user namespace grants the mount.
    """
    if shutil.which("unshare") is None:
        raise InstanceError("vibe-kanban instances need `unshare` (util-linux) to keep their worktrees apart")
    PRODUCT_TMP.mkdir(parents=True, exist_ok=True)  # the mount point; nothing is written to it outside a namespace
    user = [] if os.geteuid() == 0 else ["--user", "--map-current-user"]
    mount = 'mount --bind "$1" "$2" && exec "$3"'
    return ["unshare", *user, "--mount", "--propagation", "private", "sh", "-c", mount, "sh",
            str(private_tmp), str(PRODUCT_TMP), str(binary)]  # fmt: skip


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


class VibeKanbanInstance:
    __test__ = False

    def __init__(self, pace: float, model_upstream: str | None = None, agent_time_limit_s: float | None = None) -> None:
        self.pace = pace
        self.model_upstream = model_upstream
        self.agent_time_limit_s = agent_time_limit_s
        self.root = Path(tempfile.mkdtemp(prefix="everyday-vibe-kanban-"))
        self.data_dir = self.root
        self.home = self.root / "home"
        self.repo = self.root / "repo"
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None
        self.started_s: float | None = None
        self._api: VibeKanbanApi | None = None
        self.private_tmp = self.root / PRIVATE_TMP
        self._closed = False

    # ---- what the story reads -----------------------------------------------------

    @property
    def api(self) -> VibeKanbanApi:
        if self._api is None:
            raise InstanceError("the vibe-kanban instance is not started")
        return self._api

    @property
    def agent_workspaces(self) -> Path:
        """The instance's worktrees: every file its agents wrote and left."""
        return self.private_tmp / "worktrees"

    def on_disk(self, reported: str) -> Path:
        """Where a path vibe-kanban reports (an attempt's worktree, seen inside its namespace) is on this machine."""
        path = Path(reported)
        return self.private_tmp / path.relative_to(PRODUCT_TMP) if path.is_relative_to(PRODUCT_TMP) else path

    def agent_process(self, worktree: str, started_at: float) -> psutil.Process | None:
        """The agent process vibe-kanban started in ``worktree`` nearest to ``started_at``: the harness's own look.

        vibe-kanban starts each coding agent as its own child, leading its own
        process group, in the attempt's worktree; it does not report the pid.
        """
        if self.process is None or self.process.poll() is not None:
            return None
        found = []
        for child in psutil.Process(self.process.pid).children():
            try:
                if Path(child.cwd()).name == Path(worktree).name and child.status() != psutil.STATUS_ZOMBIE:
                    found.append((abs(child.create_time() - started_at), child))
            except psutil.Error:
                continue
        return min(found, key=lambda pair: pair[0])[1] if found else None

    def run_spend(self, worktree: str, began: float, until: float | None) -> Spend:
        """The model calls our metering proxy recorded for the run begun in ``worktree`` at ``began``."""
        return metering.run_spend(self.root, Path(worktree).name, began, until)

    def issued_secrets(self) -> dict[str, str]:
        """vibe-kanban hands out no tokens: it runs its agents on this machine without credentials."""
        return {}

    def log_paths(self) -> list[Path]:
        return [self.root / "server.log"]

    def process_alive(self, pid: int, start_time: float) -> bool:
        return _process_alive(pid, start_time)

    def process_group_alive(self, pgid: int) -> bool:
        return process_group_alive(pgid)

    def agent_command(self, adapter: str, model: str) -> str:
        """The command a hired agent's profile runs in place of ``npx @anthropic-ai/claude-code``.

        ``scripted``: our scripted agent speaking Claude Code's protocol.
        ``claude``: the pinned Claude Code itself, behind our metering proxy,
        whose model is the harness's model server (a replay profile); without
        one no real CLI is started here, so none can reach a real model API.
        """
        if adapter == "claude":
            return self._claude_command(model)
        if adapter != "scripted":
            raise InstanceError(f"vibe-kanban's Claude Code profile runs the scripted agent or claude, not {adapter}")
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

    def _claude_command(self, model: str) -> str:
        from harness.agents.install import MissingCli, locate

        if not self.model_upstream:
            raise InstanceError(
                "Claude Code on vibe-kanban runs only against the harness's model server (a replay profile)"
            )
        try:
            cli = locate("claude").binary
        except MissingCli as error:
            raise InstanceError(str(error)) from None
        limit = ["--time-limit", str(self.agent_time_limit_s)] if self.agent_time_limit_s else []
        return shlex.join(
            [sys.executable, "-m", "everyday_vibe_kanban.claude_cli", "--cli", str(cli), "--upstream",
             self.model_upstream, "--model", model, "--instance", str(self.root), *limit]
        )  # fmt: skip

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
        self.private_tmp.mkdir()
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
                _in_own_namespace(self.private_tmp, binary),
                cwd=self.root,
                env=self._environment(),
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self._wait_healthy(began)
        self.started_s = time.monotonic() - began
        if self._api is None:
            self._api = VibeKanbanApi(
                self.base_url,
                self.repo,
                self.agent_command,
                self._controller,
                self.on_disk,
                self.agent_process,
                self.run_spend,
            )
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

    def stop_controller(self, sig: signal.Signals = signal.SIGTERM) -> None:
        """Stop the server only (its agents are its children and may outlive it)."""
        stop_process(self.process, sig, 20.0, "vibe-kanban")

    def close(self) -> None:
        """Stop the server and every agent it started, remove this instance's folder (its worktrees in it); idempotent."""
        if self._closed:
            return
        self._closed = True
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
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> VibeKanbanInstance:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
