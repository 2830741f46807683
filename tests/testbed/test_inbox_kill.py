"""The controller dies right after committing "consumed by this run": no message may be lost.

Random kills almost never land in that window, so the controller's test hook
(``die-after-inbox-commit``, off in normal runs) SIGKILLs it exactly there,
again and again: a real controller process, real runners, real SQLite. Each
message carries a nonce; the scripted agent answers a nonce only when the
message reached it, so a message consumed but never handed over shows up as a
missing answer.
"""

from __future__ import annotations

import signal
import uuid

import pytest
from product_helpers import new_agent

from harness.agents.receipts import ids_in
from harness.products.testbed import TestbedInstance
from harness.testbed.faults import DIE_AFTER_INBOX_COMMIT, ENV

pytestmark = pytest.mark.e2e  # starts a real product, runner or agent CLI in the test

KILLS = 20


@pytest.mark.controller_env(**{ENV: DIE_AFTER_INBOX_COMMIT})
def test_no_message_lost_when_the_controller_dies_right_after_consuming(testbed_with_env: TestbedInstance) -> None:
    instance = testbed_with_env
    api = instance.api
    task = api.create_task("Answer me", "Reply to each message I send.", assignee_id=new_agent(api).id)
    api.wait_until_done(task.id)

    lost: list[str] = []
    for kill in range(KILLS):
        nonce = f"k{kill}x{uuid.uuid4().hex[:8]}"
        message = api.send_message(task.id, f"Please reply with nonce {nonce}")
        assert instance.process is not None
        # The premise: the controller died of the hook's SIGKILL after consuming this message.
        assert instance.process.wait(timeout=30) == -signal.SIGKILL, (
            f"kill {kill}: the controller did not die at the hook"
        )
        instance.start()

        done = api.wait_until_done(task.id)
        [stored] = [c for c in done.user_messages() if c.id == message.id]
        assert stored.consumed_by_run_id is not None, f"kill {kill}: message {message.id} was never consumed"
        answers = [c for c in done.agent_replies() if c.run_id == stored.consumed_by_run_id and nonce in c.body]
        receipts = api.run(stored.consumed_by_run_id).receipts
        handed = [r for r in receipts if r.tool in ("read_task", "read_inbox") and message.id in ids_in(r.detail)]
        if len(answers) != 1 or len(handed) != 1:
            lost.append(
                f"kill {kill}: message {message.id} answered {len(answers)}x, read {len(handed)}x by run {stored.consumed_by_run_id}"
            )

    assert lost == [], f"{len(lost)} of {KILLS} messages were not delivered exactly once: {lost}"
    assert len(api.task(task.id).user_messages()) == KILLS
