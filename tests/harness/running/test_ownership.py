"""A run's labelled folder: whatever still names it when the run ends is ended with it."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import psutil
import pytest

from harness.running.ownership import OWNER_FILE, claim_run_folder, release_run_folder, remove_dead_owners


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


def test_a_sweep_spares_a_live_run_still_writing_its_label_and_removes_a_dead_ones(tmp_path: Path) -> None:
    """Two cell workers start at once: one's sweep once removed the other's folder between its creation and its
    label, and that worker's browser could not launch in it. A folder's name says who claims it."""
    this = psutil.Process()
    claiming = tmp_path / "everyday-evals" / f"{this.pid}-{int(this.create_time())}"
    claiming.mkdir(parents=True)
    (claiming / OWNER_FILE).write_text('{"pid": ')  # the label half written
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = tmp_path / "everyday-evals" / f"{gone.stdout.strip()}-{int(this.create_time())}"
    dead.mkdir()  # its owner died before writing a label
    removed = remove_dead_owners(tmp_path)
    assert [entry.folder for entry in removed] == [dead]
    assert claiming.is_dir() and not dead.exists()
