"""A cell worker plays many cells in one process, answers every request, and leaves nothing behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from calibration.runner import play_cell
from harness.core.settings import RunSettings
from harness.core.verdicts import Verdict
from harness.running.cell_worker import CellWorker, CellWorkers
from tests.needs import marked


def _descendants(pid: int) -> list[psutil.Process]:
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []


@marked("browser")
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


@marked("browser")
def test_a_worker_holds_its_callers_stderr_for_its_stacks_and_nothing_else(tmp_path: Path) -> None:
    """Where a worker stuck after Ctrl-C prints its stacks (see test_interrupt): its caller's stderr, passed as a
    file descriptor; its own stderr (a cell's prints, its children's output) goes nowhere."""
    worker = CellWorker()
    try:
        worker.play(RunSettings(cells=("no-such-cell",), results=tmp_path))
        assert worker.process is not None
        pid, stacks_fd = worker.process.pid, psutil.Process(worker.process.pid).cmdline()[-1]
        assert os.readlink(f"/proc/{pid}/fd/{stacks_fd}") == os.readlink("/proc/self/fd/2")
        assert os.readlink(f"/proc/{pid}/fd/2") == os.devnull
    finally:
        worker.close()


@marked("browser")
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


@marked("browser")
def test_workers_told_to_stop_never_start_again_for_a_request_that_comes_after(tmp_path: Path) -> None:
    """Ctrl-C ended an idle worker; a request that came just after it once started a new worker, which played its
    whole cell while calibration waited for it (until calibration's watchdog ended it, 150 s later)."""
    workers = CellWorkers(1)
    try:
        workers.play(RunSettings(cells=("no-such-cell",), results=tmp_path))  # a live worker, idle between cells
        [pid] = workers.pids()
        workers.interrupt()
        psutil.Process(pid).wait(timeout=60)  # ended by that Ctrl-C before the next request came
        answer = workers.play(RunSettings(cells=("no-such-cell",), results=tmp_path))
        assert answer.error == "not played: the cell workers were told to stop" and answer.verdicts == {}
        assert workers.stopping and workers.pids() == []
    finally:
        workers.close()


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


ORPHANED_PARENT = """
import sys
from pathlib import Path
from harness.core.settings import RunSettings
from harness.running.cell_worker import CellWorker
worker = CellWorker()
print(worker.started().pid, flush=True)
worker.play(RunSettings(cells=("build-revise",), results=Path(sys.argv[1]), campaign="orphan", pace_s=5.0))
"""


@pytest.mark.e2e
def test_a_worker_whose_caller_is_killed_mid_cell_ends_and_leaves_nothing(tmp_path: Path) -> None:
    """A slow cell (5 s per agent step) is under way when its caller gets SIGKILL: the worker must not play it out."""
    from harness.running.selection import select

    [cell] = select(ids=("build-revise",))
    parent = subprocess.Popen(
        [sys.executable, "-c", ORPHANED_PARENT.replace('"build-revise"', repr(cell.execution_id)), str(tmp_path)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert parent.stdout is not None
    worker = psutil.Process(int(parent.stdout.readline()))
    for _ in range(120):  # until the product runs (its instance folder exists), at most a minute
        if _descendants(worker.pid) and list(tmp_path.glob("orphan/*/*")):
            break
        time.sleep(0.5)
    started = {p.pid for p in _descendants(worker.pid)}
    assert started, "the cell never started"
    parent.kill()
    parent.wait()
    _gone, alive = psutil.wait_procs([worker], timeout=60)
    assert not alive, "the orphaned worker kept playing its cell"
    _gone, alive = psutil.wait_procs(_running(started), timeout=30)
    assert not alive, f"the worker's cell left processes running: {alive}"
