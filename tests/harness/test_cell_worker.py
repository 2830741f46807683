"""A cell worker plays many cells in one process, answers every request, and leaves nothing behind."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import psutil
import pytest

from calibration.runner import play_cell
from harness.core.settings import RunSettings
from harness.core.verdicts import Verdict
from harness.running.cell_worker import CellWorker, CellWorkers


def _descendants(pid: int) -> list[psutil.Process]:
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def test_an_unknown_cell_gets_a_one_line_error_and_the_worker_serves_on(tmp_path: Path) -> None:
    worker = CellWorker()
    try:
        first = worker.play(RunSettings(cells=("no-such-cell",), results=tmp_path))
        assert first.verdicts == {}
        assert "no-such-cell" in first.error and "\n" not in first.error
        assert worker.process is not None
        pid = worker.process.pid
        second = worker.play(RunSettings(cells=("no-such-cell-either",), results=tmp_path))
        assert "no-such-cell-either" in second.error
        assert worker.process.pid == pid, "the bad request must not have cost the worker"
    finally:
        worker.close()


def test_a_killed_worker_fails_its_request_and_a_new_one_serves_the_next(tmp_path: Path) -> None:
    worker = CellWorker()
    try:
        worker.play(RunSettings(cells=("no-such-cell",), results=tmp_path))
        assert worker.process is not None
        first_pid = worker.process.pid
        os.kill(first_pid, signal.SIGKILL)
        worker.process.wait()
        answer = worker.play(RunSettings(cells=("no-such-cell",), results=tmp_path))
        assert worker.process.pid != first_pid
        assert "no-such-cell" in answer.error
    finally:
        worker.close()


def _running(pids: set[int]) -> list[psutil.Process]:
    running = []
    for pid in pids:
        try:
            running.append(psutil.Process(pid))
        except psutil.NoSuchProcess:
            pass
    return running


@pytest.mark.e2e
def test_one_worker_plays_cells_with_different_settings_and_ends_with_nothing_running(tmp_path: Path) -> None:
    """Two personas of build-revise in one worker: each its own verdict, one Chromium for both."""
    workers = CellWorkers(1)
    try:
        good = play_cell("build-revise", tmp_path, "good", workers, scripted_persona="default")
        [pid] = workers.pids()
        browsers = {p.pid for p in _descendants(pid) if "chrom" in p.name()}
        bad = play_cell("build-revise", tmp_path, "bad", workers, scripted_persona="trailing-separator")
        assert workers.pids() == [pid]
        assert browsers and browsers <= {p.pid for p in _descendants(pid)}, "the browser must serve both cells"
    finally:
        workers.close()
    assert good is not None and good.verdict is Verdict.PASSED, good and good.reason
    assert bad is not None and bad.verdict is Verdict.FAILED and "oracle.revision" in bad.failed_check_ids()
    assert not psutil.pid_exists(pid), "close() waits for the worker"
    _gone, alive = psutil.wait_procs(_running(browsers), timeout=30)
    assert not alive, f"the worker's Chromium outlived it: {alive}"
