"""The delivery: what a person takes away from vibe-kanban is the attempt's branch, ``vk-<id>-...``.

vibe-kanban commits the worktree when an agent run ends (the commit message
is the agent's last message); each such commit on the attempt's branch is a
delivery. Its ZIP is ``git archive`` of that commit from the project's
repository: the same bytes every time (file times are the commit's), so a
second download of a delivery is comparable byte for byte. Provenance: the
tree is the product's own commit, read from the branch it created, never
from the worktree the agent may still be writing in.
"""

from __future__ import annotations

import hashlib
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class BranchCommit:
    sha: str
    committed_at: int  # seconds since the epoch
    message: str


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def branch_commits(repo: Path, base: str, branch: str) -> list[BranchCommit]:
    """The commits on ``branch`` since ``base``, oldest first (none when the branch does not exist yet)."""
    exists = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "--verify", "-q", f"refs/heads/{branch}"], capture_output=True
    )
    if exists.returncode != 0:
        return []
    out = _git(repo, "log", "--reverse", "--format=%H%x00%ct%x00%s", f"{base}..{branch}")
    commits = []
    for line in out.splitlines():
        sha, when, subject = line.split("\x00", 2)
        commits.append(BranchCommit(sha, int(when), subject))
    return commits


def zip_of(repo: Path, sha: str) -> bytes:
    """The commit's tree as a ZIP."""
    return subprocess.run(
        ["git", "-C", str(repo), "archive", "--format=zip", sha], check=True, capture_output=True
    ).stdout


def files_of(repo: Path, sha: str) -> list[str]:
    return sorted(_git(repo, "ls-tree", "-r", "--name-only", sha).split())


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
