"""The task's workspace as the testbed lists it: a file that goes while it is read makes the listing be taken again,
never a server error, and a sandbox's copy replaces the folder in two renames."""

from __future__ import annotations

import io
import pathlib
import tarfile
from pathlib import Path

import pytest

from harness.testbed.api import _workspace_files
from harness.testbed.sandbox.containers import bring_back


def test_a_file_gone_while_it_is_read_tears_the_listing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "README.md").write_text("read me")
    (tmp_path / "slugify.py").write_text("print()")
    read = pathlib.Path.read_bytes

    def gone_first(path: pathlib.Path) -> bytes:
        if path.name == "README.md":
            path.unlink()  # the workspace changes between the walk and the read
        return read(path)

    monkeypatch.setattr(pathlib.Path, "read_bytes", gone_first)
    assert _workspace_files(tmp_path) is None
    monkeypatch.undo()
    assert [f.path for f in _workspace_files(tmp_path) or []] == ["slugify.py"]


def test_the_sandbox_copy_replaces_the_workspace_and_leaves_nothing_beside_it(tmp_path: Path) -> None:
    workspace = tmp_path / "task-1"
    workspace.mkdir()
    (workspace / "old.txt").write_text("old")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        data = b"new"
        info = tarfile.TarInfo("workspace/new.txt")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    bring_back(buffer.getvalue(), workspace)
    assert sorted(p.name for p in workspace.iterdir()) == ["new.txt"]
    assert [p.name for p in tmp_path.iterdir()] == ["task-1"]
