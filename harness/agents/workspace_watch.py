"""Receipts for the files a CLI agent writes, seen from outside the CLI.

The scripted agent reports each file it saves; a real CLI writes through its
own tools, which the product cannot see. The runner watches the workspace
while the CLI works and records a ``write_file`` receipt for every visible
file that appears or changes, so the product shows (and a story can wait
for) "slugify.py saved by the running run" whatever agent did it.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from pathlib import Path

from .workspace import visible

POLL_SECONDS = 0.25


def snapshot(workspace: Path) -> dict[str, str]:
    """sha256 of every visible file, by its path relative to the workspace."""
    found: dict[str, str] = {}
    if not workspace.is_dir():
        return found
    for path in workspace.rglob("*"):
        relative = path.relative_to(workspace)
        if path.is_file() and visible(relative):
            try:
                found[relative.as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
            except OSError:
                continue
    return found


class WorkspaceWatch:
    """Calls ``on_write(name, sha256)`` for each file that appears or changes until stopped."""

    def __init__(self, workspace: Path, on_write: Callable[[str, str], None]) -> None:
        self.workspace = workspace
        self.on_write = on_write
        self.seen = snapshot(workspace)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True, name="workspace-watch")

    def __enter__(self) -> WorkspaceWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self._scan()  # what was written in the last moments still counts

    def _watch(self) -> None:
        while not self._stop.wait(POLL_SECONDS):
            self._scan()

    def _scan(self) -> None:
        current = snapshot(self.workspace)
        for name, digest in sorted(current.items()):
            if self.seen.get(name) != digest:
                self.on_write(name, digest)
        self.seen = current
