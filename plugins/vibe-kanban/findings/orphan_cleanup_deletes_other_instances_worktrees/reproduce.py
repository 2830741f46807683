"""A second vibe-kanban server on the machine deletes the first one's worktrees when it starts.

Standalone (standard library only): ``python3 reproduce.py <path of the vibe-kanban 0.0.71 server binary>``.
Exit 0 when the defect reproduces, 1 when it does not, 2 when the reproduction could not run.

Every server keeps its attempts' worktrees in the same system folder
(``/var/tmp/vibe-kanban/worktrees``), whatever its HOME. At start, each
server removes every worktree there that its own database does not know
("Found orphaned worktree"). Two people on one machine, or one person with
two HOMEs (two projects' boards), each start vibe-kanban: the second start
deletes the worktree under the first one's running agent.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def call(base: str, method: str, path: str, body: object = None) -> object:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        base + path, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)["data"]


def start(binary: str, root: Path) -> tuple[subprocess.Popen[bytes], str]:
    home = root / "home"
    home.mkdir(parents=True)
    port = free_port()
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "PORT": str(port), "HOST": "127.0.0.1", "BROWSER": "true"}
    server = subprocess.Popen([binary], env=env, cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            call(base, "GET", "/api/health")
            return server, base
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("the server did not answer /api/health")


def attempt_with_worktree(base: str, root: Path) -> Path:
    """A project on a fresh repository, a task, and an attempt whose agent is `sleep 120`: its worktree."""
    repo = root / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    subprocess.run(
        [
            "git",
            "-C",
            str(repo),
            "-c",
            "user.name=r",
            "-c",
            "user.email=r@localhost",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "start",
        ],
        check=True,
    )
    profiles = json.loads(call(base, "GET", "/api/profiles")["content"])  # type: ignore[index]
    profiles["executors"]["CLAUDE_CODE"]["DEFAULT"]["CLAUDE_CODE"]["base_command_override"] = "sleep 120 #"
    call(base, "PUT", "/api/profiles", profiles)
    project = call(base, "POST", "/api/projects", {"name": "p", "git_repo_path": str(repo), "use_existing_repo": True})
    task = call(base, "POST", "/api/tasks", {"project_id": project["id"], "title": "work", "description": ""})  # type: ignore[index]
    attempt = call(
        base,
        "POST",
        "/api/task-attempts",
        {
            "task_id": task["id"],
            "executor_profile_id": {"executor": "CLAUDE_CODE", "variant": None},
            "base_branch": "main",
        },  # type: ignore[index]
    )
    for _ in range(600):
        found = call(base, "GET", f"/api/task-attempts/{attempt['id']}")  # type: ignore[index]
        if found.get("container_ref") and Path(found["container_ref"]).is_dir():  # type: ignore[union-attr]
            return Path(found["container_ref"])  # type: ignore[index]
        time.sleep(0.1)
    raise RuntimeError("the attempt got no worktree")


def stop(server: subprocess.Popen[bytes]) -> None:
    """The server and the agent process groups it started (each agent leads its own group)."""
    children = Path(f"/proc/{server.pid}/task/{server.pid}/children")
    for pid in children.read_text().split() if children.exists() else []:
        try:
            os.killpg(int(pid), signal.SIGKILL)
        except ProcessLookupError:
            pass
    server.kill()
    server.wait()


def main(binary: str) -> int:
    servers: list[subprocess.Popen[bytes]] = []
    worktree: Path | None = None
    with tempfile.TemporaryDirectory(prefix="vk-orphan-") as folder:
        try:
            first, base = start(binary, Path(folder) / "a")
            servers.append(first)
            worktree = attempt_with_worktree(base, Path(folder) / "a")
            print(f"server A's attempt works in {worktree}")
            second, _ = start(binary, Path(folder) / "b")
            servers.append(second)
            time.sleep(2)  # the clean-up runs right after the server answers
            gone = not worktree.exists()
            print(f"after server B started (its own HOME): A's worktree {'is GONE' if gone else 'still exists'}")
            return 0 if gone else 1
        except (OSError, RuntimeError, subprocess.CalledProcessError) as error:
            print(f"could not run the reproduction: {error}", file=sys.stderr)
            return 2
        finally:
            for server in servers:
                stop(server)
            if worktree is not None:
                shutil.rmtree(worktree, ignore_errors=True)  # not deleted: it is in the machine's shared folder


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: python3 reproduce.py <vibe-kanban server binary>", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
