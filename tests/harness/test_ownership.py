"""A run's labelled folder: whatever still names it when the run ends is ended with it."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import psutil
import pytest

from harness.running.ownership import claim_run_folder, release_run_folder


def test_releasing_a_run_folder_ends_a_process_its_cells_left_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)
    folder = claim_run_folder(tmp_path)
    # A runner in its own session, as a product starts one, naming the folder on its command line.
    sleeper = "import time; print('ready', flush=True); time.sleep(60)"
    left = subprocess.Popen(
        [sys.executable, "-c", sleeper, str(folder / "workspace")], start_new_session=True, stdout=subprocess.PIPE
    )
    try:
        assert left.stdout is not None and left.stdout.readline() == b"ready\n"  # running, its command line set
        assert release_run_folder(folder) == 1
        assert not psutil.pid_exists(left.pid)  # ended and reaped (by psutil, so Popen cannot see its status)
        assert not folder.exists()
    finally:
        if psutil.pid_exists(left.pid):
            left.kill()


def test_releasing_a_run_folder_with_nothing_left_ends_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)
    folder = claim_run_folder(tmp_path)
    assert release_run_folder(folder) == 0
    assert not folder.exists()
