"""Routines and budget pauses on a real controller: a webhook delivery fires once per Idempotency-Key (bad input
a 4xx); an agent whose metered spend reaches its budget is paused, its run cancelled as budget_paused, and a raise
resumes it so the work finishes in a second run."""

from __future__ import annotations

from harness.core.product_records import BUDGET_PAUSED, Run
from harness.core.waiting import wait_for
from harness.products.testbed import ApiClient
from stories.budget_stop import METERED_BUILD
from tests.testbed.product_helpers import new_agent


def test_a_webhook_delivery_fires_its_routine_once_per_key(api: ApiClient) -> None:
    agent = new_agent(api)
    made = api.request(
        "POST", "/api/routines", json={"title": "Nightly", "body": "Say hello.", "assignee_id": agent.id}
    )
    assert made.status_code == 201, made.text
    routine = made.json()
    url = routine["webhook_url"]
    first = api.request("POST", url, headers={"Idempotency-Key": "d-1"})
    again = api.request("POST", url, headers={"Idempotency-Key": "d-1"})
    other = api.request("POST", url, headers={"Idempotency-Key": "d-2"})
    assert first.status_code == again.status_code == other.status_code == 200
    assert not first.json()["replayed"] and again.json()["replayed"] and not other.json()["replayed"]
    assert again.json()["fire"]["task_id"] == first.json()["fire"]["task_id"] != other.json()["fire"]["task_id"]
    fires = api.routine(routine["id"]).fires
    assert [str(f.task_id) for f in fires] == [
        str(first.json()["fire"]["task_id"]),
        str(other.json()["fire"]["task_id"]),
    ]
    assert api.task(fires[0].task_id).assignee_id == agent.id
    assert api.request("POST", url).status_code == 422  # no Idempotency-Key
    assert api.request("POST", "/api/routine-webhooks/not-a-key", headers={"Idempotency-Key": "x"}).status_code == 404
    bad = api.request("POST", "/api/routines", json={"title": "", "body": "x", "assignee_id": agent.id})
    assert bad.status_code == 422 and "title" in bad.text


def test_a_budget_pauses_the_agent_and_a_raise_lets_the_work_finish(api: ApiClient) -> None:
    agent = new_agent(api)
    api.set_agent_budget(agent.id, 2)
    task = api.create_task("Metered build", METERED_BUILD, assignee_id=agent.id)
    paused = wait_for(lambda: next(a for a in api.agents() if a.id == agent.id).paused_for_budget, timeout=60)
    assert paused

    def first_run_ended() -> Run | None:
        run = api.task(task.id).runs[0]
        return None if run.active else run

    first = wait_for(first_run_ended, timeout=60)
    assert first.status == "cancelled" and first.error_code == BUDGET_PAUSED
    assert next(a for a in api.agents() if a.id == agent.id).spend.calls == 2
    resumed = api.set_agent_budget(agent.id, 50)
    assert not resumed.paused_for_budget
    api.wait_until_done(task.id)
    done = api.task(task.id)
    assert [r.status for r in done.runs] == ["cancelled", "succeeded"] and done.runs[1].cause == "resumed"
    assert done.deliveries
