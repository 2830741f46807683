"""Ctrl-C during a browser call leaves Playwright usable, so the attempt can still be concluded and torn down."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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
