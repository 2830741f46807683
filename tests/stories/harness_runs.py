"""Helpers for tests that run story cells through the real `harness run` command."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import psutil

from harness.core.records import AttemptRecord

T = TypeVar("T")


def harness_run(results: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run `harness run` in a subprocess, as a user would, with its own results folder."""
    return subprocess.run(
        [sys.executable, "-m", "harness.cli", "run", "--results", str(results), "--campaign", "test", *args],
        capture_output=True, text=True, timeout=600, env=env or dict(os.environ),
    )  # fmt: skip


def attempts(results: Path) -> list[AttemptRecord]:
    return [
        AttemptRecord.model_validate_json(path.read_text())
        for path in sorted(results.glob("test/*/*/attempt.json"), key=lambda p: p.stat().st_mtime)
    ]


def processes_naming(folder: Path) -> list[psutil.Process]:
    """Live processes whose command line names ``folder`` (a product's data folder lives under it)."""
    found = []
    for process in psutil.process_iter(["cmdline"]):
        try:
            if str(folder) in " ".join(process.info["cmdline"] or []) and process.status() != psutil.STATUS_ZOMBIE:
                found.append(process)
        except psutil.NoSuchProcess:  # ended between the listing and the look: not left behind
            continue
    return found


def wait_for(probe: Callable[[], T], what: str, timeout: float = 60.0) -> T:
    """Poll ``probe`` until it returns something truthy; no fixed sleeps in the tests' assertions."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if found := probe():
            return found
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")
