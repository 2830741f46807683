"""Helpers for tests that run story cells through the real `harness run` command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from harness.core.records import AttemptRecord


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
