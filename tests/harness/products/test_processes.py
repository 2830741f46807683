"""Stopping a product's process: woken by its exit, and one that ignores the signal is an error."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from harness.products.base import InstanceError
from harness.products.processes import stop_process, wait_exit

IGNORES_SIGTERM = (
    "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('ready', flush=True); time.sleep(60)"
)


def test_a_process_that_exits_is_reaped_and_one_that_does_not_times_out() -> None:
    quick = subprocess.Popen([sys.executable, "-c", "pass"])
    wait_exit(quick, timeout=30)
    assert quick.returncode == 0
    slow = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with pytest.raises(subprocess.TimeoutExpired):
            wait_exit(slow, timeout=0.2)
        assert slow.poll() is None
    finally:
        slow.kill()
        slow.wait()


def test_a_process_that_ignores_sigterm_is_killed_and_reported() -> None:
    stubborn = subprocess.Popen([sys.executable, "-c", IGNORES_SIGTERM], stdout=subprocess.PIPE)
    assert stubborn.stdout is not None and stubborn.stdout.readline() == b"ready\n"
    with pytest.raises(InstanceError, match="ignored SIGTERM"):
        stop_process(stubborn, signal.SIGTERM, 0.3, "controller")
    assert stubborn.returncode == -signal.SIGKILL
    stubborn.stdout.close()
