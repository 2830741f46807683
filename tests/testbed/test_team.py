"""The testbed's team routes: hires that wait for approval, and Pause, Resume and Terminate on a working agent."""

from __future__ import annotations

import pytest

from harness.products.testbed import ApiClient, TestbedInstance
from tests.testbed.product_helpers import start_build, unique


def test_a_hire_waits_for_approval_and_a_rejected_one_creates_nothing(fresh_testbed: TestbedInstance) -> None:
    api = fresh_testbed.api
    api.require_hire_approval(True)
    assert api.request("POST", "/api/agents", json={"name": "Direct"}).status_code == 409
    hire = api.request_hire("Morgan", "QA", reports_to=None, adapter="scripted", model="default")
    assert hire is not None and hire.status == "pending"
    assert api.request("POST", "/api/hires", json={"name": "Morgan"}).status_code == 409  # waiting already
    assert "Morgan" not in [a.name for a in api.agents()]
    approved = api.request("POST", f"/api/approvals/{hire.id}/approve").json()
    assert approved["status"] == "approved" and approved["agent_id"] in [a.id for a in api.agents()]
    assert api.request("POST", f"/api/approvals/{hire.id}/reject").status_code == 409  # decided once
    other = api.request_hire("Quinn", "QA", reports_to=None, adapter="scripted", model="default")
    assert other is not None
    rejected = api.request("POST", f"/api/approvals/{other.id}/reject").json()
    assert rejected["status"] == "rejected" and rejected["agent_id"] is None
    assert "Quinn" not in [a.name for a in api.agents()]


@pytest.mark.pace(0.3)
def test_pause_stops_the_run_and_the_work_waits_until_resume(fresh_testbed: TestbedInstance) -> None:
    api = fresh_testbed.api
    task, run = start_build(api)
    paused = api.request("POST", f"/api/agents/{task.assignee_id}/pause").json()
    assert paused["status"] == "paused"
    stopped = api.run(run.id)
    assert (stopped.status, stopped.error_code) == ("cancelled", "paused_by_user")
    api.request("POST", f"/api/tasks/{task.id}/comments", json={"body": "Also add --separator to slugify.py."})
    assert [r.id for r in api.task(task.id).runs] == [run.id]  # the scheduler gives a paused agent nothing
    assert api.request("POST", f"/api/agents/{task.assignee_id}/resume").json()["status"] == "active"
    finished = api.wait_until_done(task.id)
    assert [r.status for r in finished.runs] == ["cancelled", "succeeded"]


def test_a_terminated_agent_is_refused_work_and_stays_terminated(api: ApiClient) -> None:
    agent = api.create_agent(name=unique("Gone"))
    assert api.request("POST", f"/api/agents/{agent.id}/terminate").json()["status"] == "terminated"
    assert api.offer_task("More work", "", agent.id) is None
    assert api.request("POST", f"/api/agents/{agent.id}/resume").status_code == 409
    assert api.request("POST", "/api/agents/999999/pause").status_code == 404
