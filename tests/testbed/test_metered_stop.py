"""No model call goes unmetered, whatever moment the user presses Stop: real CLI, proxy, replay and controller.

A Stop kills the runner, and its metering proxy with it. A call the model
had already answered while its stream was still passing through the proxy
used to die unreported (the replay counted it, the product never did): the
story cells' ``replay_model_calls == model_calls`` failed once in several runs.
Here the upstream holds that stream open, so the Stop lands mid-call every time.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from held_upstream import HeldUpstream
from product_helpers import model_call_report, new_agent, runner_token

from harness.agents.loopback import LoopbackServer
from harness.products.testbed import TestbedInstance
from harness.replay.server import create_app
from harness.running.model_server import MODEL_PATHS
from oracle.tasks.slugify.contract import BUILD_TASK, BUILD_TASK_TITLE
from tests.needs import needs

pytestmark = pytest.mark.e2e  # a real product and runner (and agent CLI)

HELD_CALL = 2  # the first call is answered in full (and metered as always); the second is cut by the Stop


@pytest.fixture
@needs("product")
def world() -> Iterator[tuple[TestbedInstance, HeldUpstream, LoopbackServer]]:
    replay = LoopbackServer(create_app("story")).start()
    held = HeldUpstream(f"{replay.url}/scripts/story", hold=HELD_CALL)
    upstream = LoopbackServer(held.app).start()
    try:
        with TestbedInstance(model_upstream=upstream.url) as instance:
            yield instance, held, replay
    finally:
        held.release()
        upstream.stop()
        replay.stop()


def test_a_call_the_model_answered_while_the_user_pressed_stop_is_metered(world):
    instance, held, replay = world
    api = instance.api
    agent = api.create_agent(name="ClaudeAgent", adapter="claude", model="claude-sonnet-4-5")  # type: ignore[arg-type]
    task = api.create_task(BUILD_TASK_TITLE, BUILD_TASK, assignee_id=agent.id)
    run = api.wait_for_active_run(task.id, timeout=60)
    assert held.holding.wait(timeout=90), "the agent never made its second model call"

    stopped = api.stop_run(run.id)
    assert stopped.process_group_gone and stopped.run.status == "cancelled"

    answered = [call for call in replay.app.state.calls.all() if call.path.endswith(MODEL_PATHS)]
    spend = api.run(run.id).spend
    assert len(answered) == HELD_CALL, "the held call must be the last one that reached the model"
    assert spend.calls == len(answered), (
        f"the model answered {len(answered)} call(s) but the product metered {spend.calls}: "
        "a call cut by the Stop went unmetered"
    )
    assert spend.refused_calls == 0 and spend.simulated_cents > 0 and spend.cents == 0


@pytest.mark.pace(0.5)
def test_an_admitted_call_is_charged_its_estimate_and_its_completion_is_kept_after_a_stop(fresh_testbed):
    api = fresh_testbed.api
    task = api.create_task(BUILD_TASK_TITLE, BUILD_TASK, assignee_id=new_agent(api).id)
    run = api.wait_for_active_run(task.id)
    auth = {"Authorization": f"Bearer {runner_token(run.identity.pid or 0)}"}

    def post(report: dict[str, object]) -> int:
        return api.request("POST", f"/api/agent/runs/{run.id}/model-calls", json=report, headers=auth).status_code

    assert post(model_call_report(run.id, "answered", 3.0, status=0, in_flight=True)) == 201
    assert post(model_call_report(run.id, "killed", 4.0, status=0, in_flight=True)) == 201
    assert api.run(run.id).spend.model_dump() == {"cents": 0, "simulated_cents": 7.0, "calls": 2, "refused_calls": 0}

    assert api.stop_run(run.id).run.status == "cancelled"
    assert post(model_call_report(run.id, "after-stop", 1.0, status=0, in_flight=True)) == 409, (
        "a call got past the Stop"
    )
    # The completion of a call made while the run ran is kept, once, however often it is retried ...
    completed = model_call_report(run.id, "answered", 5.5, usage={"input_tokens": 1000, "output_tokens": 900})
    assert [post(completed), post(completed | {"cost_cents": 99.0})] == [201, 201]
    # ... and a call whose completion never came (its runner died with it) keeps its estimate: never zero.
    assert api.run(run.id).spend.model_dump() == {"cents": 0, "simulated_cents": 9.5, "calls": 2, "refused_calls": 0}
