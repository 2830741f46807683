"""Controller restarts under a running job: the runner survives, nothing is lost or recorded twice."""

from __future__ import annotations

import io
import os
import signal
import zipfile

import pytest
from product_helpers import new_agent, start_build

from harness.products.testbed import TestbedInstance
from oracle.tasks.slugify.contract import BUILD_TASK, BUILD_TASK_TITLE, LATE_REQUIREMENT_MAX_LENGTH

pytestmark = pytest.mark.e2e  # starts a real product, runner or agent CLI in the test


@pytest.mark.pace(0.4)
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["sigkill", "sigterm"])
def test_runner_survives_controller_restart(fresh_testbed: TestbedInstance, sig: signal.Signals) -> None:
    api = fresh_testbed.api
    task, before = start_build(api)
    run = before
    message = api.send_message(task.id, LATE_REQUIREMENT_MAX_LENGTH)
    old_controller = fresh_testbed.controller_pid

    fresh_testbed.restart(sig)

    assert fresh_testbed.controller_pid != old_controller
    after = api.run(run.id)
    assert after.status == "running", "the run ended before the restart could be exercised"
    assert after.identity == before.identity
    done = api.wait_until_done(task.id)
    final = api.run(run.id)
    assert final.status == "succeeded" and final.identity == before.identity
    assert final.receipts[: len(before.receipts)] == before.receipts
    assert len({r.id for r in final.receipts}) == len(final.receipts)
    assert [r.seq for r in final.receipts] == list(range(len(final.receipts)))
    [stored] = [c for c in done.user_messages() if c.id == message.id]
    assert stored.consumed_by_run_id is not None
    assert api.run(stored.consumed_by_run_id).status == "succeeded"
    assert len(done.user_messages()) == 1
    source = zipfile.ZipFile(io.BytesIO(api.delivery_bytes(done.deliveries[-1].id))).read("slugify.py").decode()
    assert "--max-length" in source
    replies = [(c.run_id, c.body) for c in done.agent_replies()]
    assert len(set(replies)) == len(replies), "a reply was recorded twice"
    assert len({d.sha256 for d in done.deliveries}) == len(done.deliveries), "a delivery was recorded twice"
    assert "re-adopted" in fresh_testbed.controller_log.read_text()


@pytest.mark.pace(0.4)
def test_runner_gone_during_restart_is_marked_process_lost(fresh_testbed: TestbedInstance) -> None:
    api = fresh_testbed.api
    task = api.create_task(BUILD_TASK_TITLE, BUILD_TASK, assignee_id=new_agent(api).id)
    run = api.wait_for_active_run(task.id)

    fresh_testbed.stop_controller(signal.SIGKILL)
    os.killpg(run.identity.pid or 0, signal.SIGKILL)
    fresh_testbed.start()

    lost = api.run(run.id)
    assert lost.status == "failed" and lost.error_code == "process_lost"
    assert api.task(task.id).status == "blocked"


@pytest.mark.pace(0.5)
def test_stop_reaches_a_runner_adopted_after_restart(fresh_testbed: TestbedInstance) -> None:
    api = fresh_testbed.api
    task, run = start_build(api)
    fresh_testbed.restart(signal.SIGKILL)
    assert api.run(run.id).status == "running"

    result = api.stop_run(run.id)
    assert result.process_group_gone and result.run.status == "cancelled"
    assert result.run.error_code == "stopped_by_user"
    assert api.wait_for_task(task.id, lambda t: t.settled, what="settled").status == "blocked"
