"""Stopping a product's process: woken by its exit, and one that ignores the signal is an error."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from harness.core.product_records import RunIdentity
from harness.core.waiting import wait_for
from harness.products.base import InstanceError
from harness.products.processes import (
    group_members,
    look_at_process,
    look_at_runner_process,
    stop_process,
    wait_exit,
)

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


def test_the_harness_looks_at_a_runner_and_its_group_in_the_process_table() -> None:
    """A runner started in a group of its own whose helper shares it: two looks at the runner agree on its start
    time and group (not the product's word), the helper is a member, and once the group is killed nothing is left."""
    helper = "import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); time.sleep(60)"
    runner = subprocess.Popen([sys.executable, "-c", helper], start_new_session=True)
    try:
        first, second = look_at_process(runner.pid), look_at_process(runner.pid)
        assert first.alive and first.key == second.key and first.group == runner.pid
        assert first.provenance == "harness" and first.started is not None
        members = wait_for(lambda: group_members(runner.pid) if len(group_members(runner.pid)) == 2 else None)
        assert runner.pid in members
        os.killpg(runner.pid, signal.SIGKILL)
        runner.wait()
        assert wait_for(lambda: not group_members(runner.pid)) and not look_at_process(runner.pid).alive
        assert not look_at_runner_process(RunIdentity(runner_instance_id=None, pid=None, process_start_time=None)).alive
    finally:
        if runner.poll() is None:
            os.killpg(runner.pid, signal.SIGKILL)
            runner.wait()
