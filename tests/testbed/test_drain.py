"""A drain the operator asked for: the shutdown ends the running run's runner, records the run interrupted and queues
its retry, which the next controller starts and hands the message the interrupted run never read."""

from __future__ import annotations

import io
import signal
import zipfile

import pytest
from product_helpers import start_build

from harness.products.testbed import TestbedInstance
from oracle.tasks.slugify.contract import LATE_REQUIREMENT_MAX_LENGTH

pytestmark = pytest.mark.e2e  # starts a real product, runner or agent CLI in the test


@pytest.mark.pace(0.4)
def test_a_requested_drain_interrupts_the_run_and_its_retry_reads_the_unread_message(
    fresh_testbed: TestbedInstance,
) -> None:
    api = fresh_testbed.api
    task, before = start_build(api)
    message = api.send_message(task.id, LATE_REQUIREMENT_MAX_LENGTH)

    fresh_testbed.request_drain()
    fresh_testbed.stop_controller(signal.SIGTERM)
    assert not fresh_testbed.process_alive(before.identity.pid or 0, before.identity.process_start_time or 0)
    fresh_testbed.start()

    drained = api.run(before.id)
    assert drained.status == "failed" and drained.error_code == "interrupted_by_shutdown", drained
    assert not any(str(message.id) in r.received_message_ids for r in drained.receipts), "read before the drain"
    done = api.wait_until_done(task.id)
    [retry] = [run for run in done.runs if run.id != before.id]
    assert retry.cause == "recovery" and retry.status == "succeeded"
    assert retry.identity.pid != before.identity.pid
    assert any(str(message.id) in r.received_message_ids for r in retry.receipts), "the retry was not handed it"
    assert [d.run_id for d in done.deliveries] == [retry.id]
    source = zipfile.ZipFile(io.BytesIO(api.delivery_bytes(done.deliveries[0].id))).read("slugify.py").decode()
    assert "--max-length" in source
    log = fresh_testbed.controller_log.read_text()
    assert f"run {before.id} drained" in log and "re-adopted" not in log


@pytest.mark.pace(0.4)
def test_a_drain_request_holds_for_one_shutdown_only(fresh_testbed: TestbedInstance) -> None:
    """The next controller starts without the request: a plain SIGTERM of it keeps the retry's runner working."""
    api = fresh_testbed.api
    fresh_testbed.request_drain()
    fresh_testbed.restart(signal.SIGTERM)  # nothing runs yet: the drain drains nothing
    task, before = start_build(api)
    fresh_testbed.restart(signal.SIGTERM)
    assert api.run(before.id).status == "running"
    assert api.wait_until_done(task.id).runs[-1].id == before.id
