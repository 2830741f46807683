"""The isolated instance leaves nothing behind: no controller, runner, helper or listening port."""

from __future__ import annotations

import shutil
import socket

import psutil
import pytest
from product_helpers import start_build

from harness.products.testbed import TestbedInstance

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
