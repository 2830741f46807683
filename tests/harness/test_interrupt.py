"""Ctrl-C during a browser call leaves Playwright usable, so the attempt can be concluded; a process stuck after it still ends."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.stories.harness_runs import WATCHDOG_FIRED

ROOT = Path(__file__).resolve().parents[2]


def test_ctrl_c_at_any_moment_of_a_playwright_call_leaves_the_next_call_answering() -> None:
    """Raised inside Playwright's loop, Ctrl-C could cut short the handling of a driver message.

    The message was lost ("Cannot find command to respond"), and a later call
    waited for it for ever: a harness given Ctrl-C hung instead of ending the
    attempt. With Python's own handler, this test failed in 3 runs out of 3.
    """
    done = subprocess.run(
        [sys.executable, "-m", "tests.harness.interrupted_playwright_calls", "150"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "150 interrupted, every next call answered" in done.stdout


STUCK_AFTER_CTRL_C = """
import os, signal, threading
from harness.running import interrupt

interrupt.STUCK_AFTER_INTERRUPT_S = 1.0
interrupt.install()
try:
    os.kill(os.getpid(), signal.SIGINT)
except KeyboardInterrupt:
    pass


def teardown_that_never_returns():
    threading.Event().wait()


teardown_that_never_returns()
"""


def test_a_process_stuck_after_ctrl_c_prints_where_and_ends_itself() -> None:
    """Whatever still waits for ever after Ctrl-C, the process ends, and its output says where it was stuck."""
    done = subprocess.run(
        [sys.executable, "-c", STUCK_AFTER_CTRL_C], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1, done.stderr
    assert WATCHDOG_FIRED in done.stderr and "teardown_that_never_returns" in done.stderr, done.stderr
