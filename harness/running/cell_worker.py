"""A long-lived process that plays story cells one after another with one Chromium.

Every `harness run` pays for a Python start, the harness's imports, pytest's
start and a Chromium launch before its cell begins, and again for the next
one. Calibration plays well over a hundred scripted cells, each with its own
settings (persona, product defect, deadline), so those fixed costs were a
large part of its CPU. A worker pays them once and then plays each cell it
is sent through the same ``run_cell`` as `harness run`: same product start,
story, checks, oracle and evidence, a new browser context per attempt.

Protocol: one ``RunSettings`` as JSON per line on stdin; after its cells are
played, one ``Played`` as JSON per line on the reply stream. The worker's
own stdout (and its children's) goes to its stderr, which goes nowhere
(each attempt keeps its own logs in its evidence package), so nothing a
cell prints can corrupt a reply. Only a worker stuck after Ctrl-C writes to
its caller's stderr: the watchdog's stacks, where it was stuck (once, a
calibration told to stop waited for a worker and could only say that it
waited). End of stdin ends the worker, and so does its caller's death
(mid-cell too, as a Ctrl-C would); what its cells left running is ended as
it exits, as `harness run` does.
"""

from __future__ import annotations

import atexit
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from queue import LifoQueue
from typing import IO

from pydantic import BaseModel

from harness.core.settings import RunSettings


class Played(BaseModel):
    """The worker's answer for one request: each cell's final verdict, or why the request could not be played."""

    verdicts: dict[str, str] = {}
    error: str = ""


def serve(requests: IO[str], replies: IO[str]) -> None:
    """Play each request's cells with one shared browser, relaunched only if it went away.

    The first launch happens before the first cell; a relaunch is the
    attempt's own (``SharedBrowser``), recorded in the package of the attempt that found the browser gone.

    Imported here: a caller that only starts workers need not load Playwright and the product drivers.
    """
    from playwright.sync_api import sync_playwright

    from harness.products import cool_down, product_driver, warm_up
    from harness.running import interrupt
    from harness.running.attempt import run_cell
    from harness.running.browser import launch_options
    from harness.running.journey_factory import journey_factory
    from harness.running.selection import select
    from harness.running.shared_browser import SharedBrowser

    interrupt.install()
    with sync_playwright() as playwright:
        shared: SharedBrowser | None = None
        for line in requests:
            try:
                settings = RunSettings.model_validate_json(line)
                cells = select(ids=settings.cells)
                # Beside the browser's launch; a worker lives to play many cells.
                warm_up((cell.environment.product for cell in cells), many_instances=True)
                if shared is None:
                    shared = SharedBrowser(
                        playwright.chromium.launch(headless=True, **launch_options(playwright.chromium))
                    )
            except Exception as error:  # a bad request, or no browser: answered, and the next request tries again
                played = Played(error=(str(error).strip().splitlines() or [type(error).__name__])[0])
            else:
                played = Played()
                for cell in cells:
                    secret_shapes = product_driver(cell.environment.product).secret_patterns
                    attempts = run_cell(cell, settings, journey_factory(shared), secret_shapes)
                    played.verdicts[cell.execution_id] = attempts[-1].verdict.value
            replies.write(played.model_dump_json() + "\n")
            replies.flush()
        if shared is not None:
            shared.close()
    cool_down()


def _interrupt_when_orphaned(parent: int, every_s: float = 1.0) -> None:
    """Interrupt this worker once its parent is gone, as a Ctrl-C would.

    Stdin's end alone would only be read after the current cell, which may
    run to its deadline with nobody waiting for it.
    """
    while os.getppid() == parent:
        time.sleep(every_s)
    os.kill(os.getpid(), signal.SIGINT)


def main() -> int:
    """Serve stdin until it closes, inside one labelled run folder, as `harness run` does.

    The caller's stderr comes as a file descriptor named on the command line.
    """
    from harness.running import interrupt
    from harness.running.ownership import owned_run

    threading.Thread(target=_interrupt_when_orphaned, args=(os.getppid(),), daemon=True).start()
    if len(sys.argv) > 1:
        interrupt.report_stuck_stacks_to(os.fdopen(int(sys.argv[1]), "w"))

    replies = os.fdopen(os.dup(sys.stdout.fileno()), "w")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # a cell's prints and its children's output go to stderr
    try:
        with owned_run():
            serve(sys.stdin, replies)
    except (KeyboardInterrupt, BrokenPipeError):  # Ctrl-C, or the caller went away mid-cell
        return 130
    return 0


class CellWorker:
    """One worker process seen from the caller: send settings, wait for their cells to be played.

    A worker that died (its cell killed it, or it was killed) is started
    again for the next request; the request it died on gets an error, never
    a hang. Once told to stop, it is never started again: a request that
    found its worker ended by that very Ctrl-C once started a new one, which
    played its whole cell while the caller waited for it.
    """

    def __init__(self, stop: threading.Event | None = None) -> None:
        self.process: subprocess.Popen[str] | None = None
        self._stop = stop or threading.Event()
        self._lock = threading.Lock()  # a start and a Ctrl-C never cross: either sees the other

    def started(self) -> subprocess.Popen[str] | None:
        """The live worker process, started now if there is none (or it died); none once told to stop."""
        with self._lock:
            if self._stop.is_set():
                return None
            if self.process is None or self.process.poll() is not None:
                callers_stderr = os.dup(2)
                try:
                    self.process = subprocess.Popen(
                        [sys.executable, "-m", "harness.running.cell_worker", str(callers_stderr)],
                        stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE,
                        # Not the caller's: a worker Ctrl-C reaches while it imports would print a traceback there.
                        stderr=subprocess.DEVNULL,
                        pass_fds=(callers_stderr,),
                        text=True,
                    )
                finally:
                    os.close(callers_stderr)
            return self.process

    def interrupt(self) -> None:
        """Ctrl-C: the cell being played ends as interrupted (product stopped, evidence kept), and none starts again."""
        self._stop.set()
        with self._lock:
            if self.process is not None and self.process.poll() is None:
                with suppress(ProcessLookupError):
                    os.kill(self.process.pid, signal.SIGINT)

    def play(self, settings: RunSettings) -> Played:
        process = self.started()
        if process is None:
            return Played(error="not played: the cell workers were told to stop")
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(settings.model_dump_json() + "\n")
            process.stdin.flush()
            line = process.stdout.readline()
        except OSError as error:
            line, died = "", str(error)
        else:
            died = ""
        if not line:
            process.wait()
            return Played(error=f"the cell worker ended (exit {process.returncode}) {died}".rstrip())
        return Played.model_validate_json(line)

    def close(self, timeout_s: float = 120) -> None:
        """Close stdin and wait for the worker to end its cells' leftovers; kill it if it does not."""
        if self.process is None:
            return
        process, self.process = self.process, None
        if process.stdin is not None and not process.stdin.closed:
            process.stdin.close()
        try:
            process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


class CellWorkers:
    """At most ``size`` workers, started when first needed and shared by every thread of this process."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._stop = threading.Event()  # shared with every worker, those not yet made too
        self._idle: LifoQueue[CellWorker] = LifoQueue()
        self._all: list[CellWorker] = []
        self._lock = threading.Lock()
        atexit.register(self.close)

    @property
    def stopping(self) -> bool:
        """Told to stop: no cell is played any more."""
        return self._stop.is_set()

    @contextmanager
    def borrow(self) -> Iterator[CellWorker]:
        """An idle worker (a new one while fewer than ``size`` exist), returned to the pool afterwards."""
        with self._lock:
            if self._idle.empty() and len(self._all) < self.size:
                self._all.append(CellWorker(self._stop))
                self._idle.put(self._all[-1])
        worker = self._idle.get()
        try:
            yield worker
        finally:
            self._idle.put(worker)

    def pids(self) -> list[int]:
        """The workers running now."""
        return [w.process.pid for w in self._all if w.process is not None and w.process.poll() is None]

    def play(self, settings: RunSettings) -> Played:
        with self.borrow() as worker:
            return worker.play(settings)

    def interrupt(self) -> None:
        """Ctrl-C to every worker: each ends the cell it plays as interrupted, and no worker starts again."""
        self._stop.set()
        with self._lock:
            workers = list(self._all)
        for worker in workers:
            worker.interrupt()

    def close(self) -> None:
        """End every worker: all are told at once, then each is waited for."""
        for worker in self._all:
            if worker.process is not None and worker.process.stdin is not None:
                worker.process.stdin.close()
        for worker in self._all:
            worker.close()


if __name__ == "__main__":
    sys.exit(main())
