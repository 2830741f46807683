"""The scripted agent as vibe-kanban's Claude Code profile runs it: a prompt on stdin, stream-json on stdout,
the session's prompts kept in HOME so ``--resume`` continues it. Real processes, no product."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from everyday_vibe_kanban import install
from oracle.tasks.slugify.contract import BUILD_TASK, BUILD_TASK_TITLE, REVISION_SEPARATOR


def _run(workspace: Path, home: Path, prompt: str, *extra: str) -> list[dict[str, object]]:
    done = subprocess.run(
        [sys.executable, "-m", "everyday_vibe_kanban.claude_agent", "-p", "--verbose", "--pace", "0", *extra],
        input=prompt,
        cwd=workspace,
        env={"HOME": str(home), "PATH": "/usr/bin:/bin", "PYTHONPATH": str(Path.cwd())},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_it_builds_then_resumes_its_session_for_the_follow_up(tmp_path: Path) -> None:
    workspace, home = tmp_path / "worktree", tmp_path / "home"
    workspace.mkdir()
    events = _run(workspace, home, f"Title: {BUILD_TASK_TITLE}\n\nDescription:{BUILD_TASK}")
    assert events[0]["type"] == "system" and events[-1]["type"] == "result" and events[-1]["is_error"] is False
    session = str(events[0]["session_id"])
    assert all(e["session_id"] == session for e in events)
    assert "--separator" not in (workspace / "slugify.py").read_text()
    resumed = _run(workspace, home, REVISION_SEPARATOR, "--resume", session)
    assert resumed[0]["session_id"] == session
    assert "--separator" in (workspace / "slugify.py").read_text()
    assert "--separator" in str(resumed[-1]["result"])


def test_a_missing_unzip_is_one_line_saying_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(install.shutil, "which", lambda name: None if name == "unzip" else f"/usr/bin/{name}")
    with pytest.raises(install.InstallFailed, match="`unzip` is missing"):
        install.install()
