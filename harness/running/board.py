"""The terminal of `harness run`: one line per cell as it runs and as it ends, and pytest's own output kept aside.

On a terminal, each running cell has a line redrawn in place (its step and
elapsed time) below the lines of the cells that ended; piped into a file or
a CI log, the same run prints plain lines: a cell started, a cell still
running (every ``HEARTBEAT_S``), a cell ended. An ended cell shows its
verdict and time, and for anything but a pass, why (the first failed check
with its own detail) and the evidence to open.

pytest's own lines (progress, counts, warnings, its KeyboardInterrupt banner)
would contradict the harness's summary, so they go to ``PYTEST_OUTPUT`` in
the campaign folder, unless the run asked for them (``harness run -v``, or
arguments after ``--``). The board is a pytest plugin of the controller
process only: xdist workers report to it through their progress files
(``harness.running.progress``).
"""

from __future__ import annotations

import io
import os
import shutil
import sys
import threading
import time
from pathlib import Path
from typing import TextIO

import pytest

from harness.running.progress import ProgressEvent, ProgressReader

PYTEST_OUTPUT = "pytest-output.txt"
HEARTBEAT_S = 30.0
REDRAW_S = 0.5
CLEAR_BELOW = "\x1b[J"


def _up(lines: int) -> str:
    return f"\x1b[{lines}F" if lines else ""


def terminal_stream() -> TextIO:
    """The real standard output, kept before pytest captures file descriptor 1 for a cell run in this process."""
    try:
        return os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1, encoding="utf-8", errors="replace")
    except (AttributeError, OSError, io.UnsupportedOperation):  # a stream without a descriptor (a test's StringIO)
        return sys.stdout


def cell_of(nodeid: str) -> str:
    """The execution id in a story item's node id (``test_cell[chromium-<execution id>]``)."""
    return nodeid.rsplit("[", 1)[-1].rstrip("]").removeprefix("chromium-")


class _Running:
    """A cell's attempt under way: when it started, the step it is at, when the piped log last heard of it."""

    def __init__(self, started: float) -> None:
        self.started = started
        self.step = "starting"
        self.heard = started


class ProgressBoard:
    """Reads the attempts' progress files and prints them; register it as a pytest plugin of the controller."""

    def __init__(self, folder: Path, total: int, out: TextIO, live: bool, pytest_output: Path | None) -> None:
        """``pytest_output``: where pytest's own output goes (None: left on the terminal)."""
        self.reader = ProgressReader(folder)
        self.total = total
        self.out = out
        self.live = live
        self.pytest_output = pytest_output
        self.done = 0
        self.running: dict[tuple[str, str], _Running] = {}
        self.ended_cells: dict[str, int] = {}
        self.unfinished_items: list[str] = []
        self._drawn = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="progress-board", daemon=True)
        self._log: TextIO | None = None

    # ---- pytest hooks (controller) --------------------------------------------------------

    @pytest.hookimpl(trylast=True)
    def pytest_configure(self, config: pytest.Config) -> None:
        """Send pytest's terminal output to the campaign's file; xdist's reporter writes through the same writer."""
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        if self.pytest_output is None or reporter is None:
            return
        from _pytest._io import TerminalWriter

        self._log = self.pytest_output.open("w", encoding="utf-8")
        reporter._tw = TerminalWriter(self._log)

    def pytest_unconfigure(self) -> None:
        if self._log is not None:
            self._log.close()

    def pytest_report_teststatus(self, report: pytest.TestReport) -> tuple[str, str, str] | None:
        """No progress dot for a cell: its own line says more."""
        if report.when == "call" and "verdict" in dict(report.user_properties):
            outcome = "xfailed" if hasattr(report, "wasxfail") else report.outcome  # a known finding
            return outcome, "", outcome.upper()
        return None

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """A cell item that ended without any attempt ending (a fixture failed: the browser, the settings)."""
        failed_outside = report.failed and report.when in ("setup", "teardown")
        failed_call = report.failed and report.when == "call" and "verdict" not in dict(report.user_properties)
        complete = dict(report.user_properties).get("verdict") == "complete already"
        if not (failed_outside or failed_call or complete):
            return
        cell = cell_of(report.nodeid)
        with self._lock:
            self._absorb(self.reader.read())
            if complete:
                self._ended_line("complete already", cell, 0.0, "", "")
            elif not self.ended_cells.get(cell):
                self.unfinished_items.append(cell)
                why = str(report.longrepr).strip().splitlines()[-1:] or [report.when]
                self._ended_line(f"error ({report.when})", cell, report.duration, why[0], "")

    # ---- the watching thread ----------------------------------------------------------------

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Print what is left to print and clear the lines drawn in place; the board is silent afterwards."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        with self._lock:
            self._absorb(self.reader.read())
            self._erase()
            self.out.flush()

    def _watch(self) -> None:
        while not self._stop.wait(REDRAW_S):
            with self._lock:
                try:
                    self._absorb(self.reader.read())
                    self._heartbeat()
                    self._draw()
                except (OSError, ValueError):  # the terminal went away, or the folder did: the run plays on
                    return

    def _absorb(self, events: list[ProgressEvent]) -> None:
        for event in events:
            key = (event.cell, event.attempt)
            if event.kind == "start":
                self.running[key] = _Running(event.at)
                if not self.live:
                    self._print(f"started {event.cell}")
            elif event.kind == "step" and key in self.running:
                self.running[key].step = event.step
            elif event.kind == "end":
                self.running.pop(key, None)
                self.ended_cells[event.cell] = self.ended_cells.get(event.cell, 0) + 1
                self._ended_line(event.label or event.verdict, event.cell, event.wall_s, event.why, event.evidence)

    def _ended_line(self, label: str, cell: str, seconds: float, why: str, evidence: str) -> None:
        self.done += 1
        lines = [f"[{self.done}/{max(self.total, self.done)}] {label:<21} {cell} ({seconds:.1f} s)"]
        if why:
            lines.append(f"      {why}")
        if evidence:
            lines.append(f"      evidence: {evidence}")
        self._print(*lines)

    def _heartbeat(self) -> None:
        """Piped, a cell still running says so now and then: a CI log that stays silent for minutes looks hung."""
        if self.live:
            return
        now = time.time()
        for (cell, _), running in self.running.items():
            if now - running.heard >= HEARTBEAT_S:
                running.heard = now
                self._print(f"  still running {cell} ({now - running.started:.0f} s): {running.step}")

    # ---- drawing ------------------------------------------------------------------------------

    def _print(self, *lines: str) -> None:
        self._erase()
        self.out.write("".join(line + "\n" for line in lines))
        self.out.flush()

    def _erase(self) -> None:
        if self._drawn:
            self.out.write(_up(self._drawn) + CLEAR_BELOW)
            self._drawn = 0

    def _draw(self) -> None:
        """On a terminal, each running cell's line, redrawn in place (cut to the width so none wraps)."""
        if not self.live:
            return
        width = shutil.get_terminal_size().columns - 1
        now = time.time()
        lines = [
            f"  running {now - running.started:5.0f} s  {cell}  {running.step}"[:width]
            for (cell, _), running in sorted(self.running.items(), key=lambda item: item[1].started)
        ]
        self._erase()
        self.out.write("".join(line + "\n" for line in lines))
        self.out.flush()
        self._drawn = len(lines)


def board_for(folder: Path, total: int, campaign_folder: Path, show_pytest: bool) -> ProgressBoard:
    """The board of one run: live on a terminal, plain lines when piped; pytest's output aside unless shown."""
    out = terminal_stream()
    return ProgressBoard(
        folder,
        total,
        out,
        live=out.isatty() and os.environ.get("TERM") != "dumb",
        pytest_output=None if show_pytest else campaign_folder / PYTEST_OUTPUT,
    )
