"""The isolated instance leaves nothing behind: no controller, runner, helper or listening port."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from product_helpers import raw_exchange, start_build

from harness.products.base import InstanceError
from harness.products.testbed import TestbedInstance
from harness.testbed import body_deadline

pytestmark = pytest.mark.e2e  # starts a real product, runner or agent CLI in the test


def test_teardown_kills_controller_runners_and_detached_helpers() -> None:
    instance = TestbedInstance(pace=0.5, keep_data=True)
    with instance:
        task, run = start_build(instance.api, "writes-after-stop")
        assert instance.api.stop_run(run.id).process_group_gone
        progress = instance.workspace(task.id) / "progress.log"
        instance.api.wait_for(progress.exists, timeout=10, what="the detached helper writing")
        assert instance.processes(), "controller and helper are running before teardown"

    assert instance.processes() == []
    assert (
        not psutil.pid_exists(run.identity.pid or 0)
        or psutil.Process(run.identity.pid or 0).status() == psutil.STATUS_ZOMBIE
    )
    with socket.socket() as sock:  # nothing listens any more (TIME_WAIT leftovers are fine, as for uvicorn)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", instance.port))
        sock.listen()
    assert instance.controller_log.exists()
    shutil.rmtree(instance.data_dir)


def test_a_forked_controller_is_started_as_a_fresh_one_would_be(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its own session and working folder, and the harness's environment at its start, not the forkserver's."""
    with TestbedInstance():
        pass  # the forkserver runs now, with the environment it started with
    monkeypatch.setenv(body_deadline.ENV, "1")
    with TestbedInstance() as instance:
        pid = instance.controller_pid
        assert pid is not None and os.getsid(pid) == pid != os.getsid(0)
        assert psutil.Process(pid).cwd() == str(instance.data_dir)
        answer = raw_exchange(
            instance.port, b"POST /api/tasks HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{"
        )
        assert b"not received within 1 s" in answer  # the variable set after the forkserver started


def test_a_controller_that_cannot_start_says_why_with_its_exit_code(tmp_path: Path) -> None:
    """The forked controller parses its arguments as `python -m harness.testbed serve` does and exits with its code."""
    instance = TestbedInstance(data_dir=tmp_path / "data", defects=("no-such-defect",))
    with pytest.raises(InstanceError, match=r"(?s)controller exited with 2: .*invalid choice: 'no-such-defect'"):
        instance.start()
    instance.close()
    assert instance.processes() == []


def test_a_script_without_a_main_guard_read_from_stdin_starts_a_controller_and_runs_once(tmp_path: Path) -> None:
    """multiprocessing would import the caller's main script again in the controller: this one, read from stdin,
    could not be found (every controller exited 1), and without a guard it would have run again in each."""
    ran = tmp_path / "ran.txt"
    script = (
        "from pathlib import Path\n"
        f"with Path({str(ran)!r}).open('a') as ran: ran.write('ran\\n')\n"
        "from harness.products.testbed import TestbedInstance\n"
        "with TestbedInstance() as instance: print(instance.api.http.get('/api/health').status_code)\n"
    )
    done = subprocess.run([sys.executable, "-"], input=script, capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert (done.returncode, done.stdout.strip()) == (0, "200"), done.stderr[-2000:]
    assert ran.read_text() == "ran\n"


def test_a_hangup_or_sigterm_to_the_harness_group_leaves_the_forkserver_to_its_controllers() -> None:
    """The forkserver shares the harness's process group: a closed terminal used to end it, and a controller whose
    forkserver is gone reads as exited, so its stop was skipped and it was left to the run folder's sweep."""
    with TestbedInstance() as instance:
        assert instance.controller_pid is not None
        forkserver = psutil.Process(instance.controller_pid).parent()
        assert forkserver is not None
        for sig in (signal.SIGHUP, signal.SIGTERM):
            forkserver.send_signal(sig)
        time.sleep(0.5)  # a signal's default action would have ended it by now
        assert forkserver.is_running() and instance.process is not None and instance.process.poll() is None
        controller = psutil.Process(instance.controller_pid)
    assert not controller.is_running() or controller.status() == psutil.STATUS_ZOMBIE
    assert instance.process.poll() == -signal.SIGTERM  # stopped by its SIGTERM, which uvicorn raises again once done


def test_warming_up_the_testbed_starts_its_forkserver_in_the_background_for_the_first_controller() -> None:
    """`harness run` and the cell worker warm their products up before the browser launches, so the forkserver's
    imports overlap the launch instead of delaying the first product start."""
    script = (
        "import time, psutil\n"
        "from harness.products import warm_up\n"
        "from harness.products.testbed import TestbedInstance\n"
        "warm_up(['testbed'], many_instances=False)\n"
        "deadline = time.monotonic() + 10\n"
        "def forkservers(): return [p for p in psutil.Process().children() if 'forkserver' in ' '.join(p.cmdline())]\n"
        "while not forkservers() and time.monotonic() < deadline: time.sleep(0.01)\n"
        "started = forkservers()\n"
        "with TestbedInstance() as instance:\n"
        "    print([p.pid for p in started] == [psutil.Process(instance.controller_pid).ppid()])\n"
    )
    done = subprocess.run([sys.executable, "-"], input=script, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout.strip()) == (0, "True"), done.stderr[-2000:]
