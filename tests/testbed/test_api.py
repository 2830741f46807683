"""The public API against a real controller process and real runner processes."""

from __future__ import annotations

import hashlib
import io
import zipfile

import pytest
from product_helpers import new_agent, runner_token

from harness.products.http import ProductApiError
from harness.products.testbed import ApiClient, TestbedInstance
from oracle.tasks.slugify.contract import BUILD_TASK, BUILD_TASK_TITLE, REVISION_SEPARATOR


def test_build_then_revise_with_downloadable_immutable_deliveries(api: ApiClient) -> None:
    agent = new_agent(api)
    task = api.create_task(BUILD_TASK_TITLE, BUILD_TASK, assignee_id=agent.id)
    assert task.status == "todo"

    done = api.wait_until_done(task.id)
    [first] = done.deliveries
    [run] = done.runs
    assert run.status == "succeeded" and run.identity.pid and run.identity.process_start_time
    assert run.identity.runner_instance_id
    assert [r.seq for r in run.receipts] == list(range(len(run.receipts)))
    assert len({r.id for r in run.receipts}) == len(run.receipts)
    assert {"write_file", "run_tests", "deliver"} <= {r.tool for r in run.receipts}

    once, twice = api.delivery_bytes(first.id), api.delivery_bytes(first.id)
    assert once == twice and hashlib.sha256(once).hexdigest() == first.sha256
    assert set(zipfile.ZipFile(io.BytesIO(once)).namelist()) == {"slugify.py", "README.md", "test_slugify.py"}

    message = api.send_message(task.id, REVISION_SEPARATOR)
    assert message.consumed_by_run_id is None
    revised = api.wait_until_done(task.id)
    second = revised.deliveries[-1]
    assert len(revised.deliveries) == 2 and second.sha256 != first.sha256
    assert "--separator" in zipfile.ZipFile(io.BytesIO(api.delivery_bytes(second.id))).read("slugify.py").decode()
    [stored] = [c for c in revised.user_messages() if c.id == message.id]
    consumer = api.run(stored.consumed_by_run_id or 0)
    assert consumer.status == "succeeded" and consumer.id == revised.runs[-1].id
    assert api.delivery_bytes(first.id) == once
    assert second.sha256 in revised.agent_replies()[-1].body


def test_bad_input_is_rejected_and_nothing_is_written(api: ApiClient) -> None:
    before = len(api.tasks())
    missing_title = api.request("POST", "/api/tasks", json={"body": "x"})
    assert missing_title.status_code == 422 and "title" in missing_title.text
    assert api.request("POST", "/api/tasks", json={"title": "x", "surprise": 1}).status_code == 422
    assert (
        api.request(
            "POST", "/api/tasks", content=b"{not json", headers={"content-type": "application/json"}
        ).status_code
        == 422
    )
    bad_assignee = api.request("POST", "/api/tasks", json={"title": "x", "assignee_id": 999999})
    assert bad_assignee.status_code == 400 and "assignee_id" in bad_assignee.text
    assert api.request("POST", "/api/agents", json={"name": "Zed", "adapter": "nope"}).status_code == 400
    assert api.request("POST", "/api/agents", json={"name": ""}).status_code == 422
    assert len(api.tasks()) == before

    for path in ("/api/tasks/999999", "/api/runs/999999", "/api/deliveries/999999", "/api/deliveries/999999/download"):
        assert api.request("GET", path).status_code == 404, path
    assert api.request("POST", "/api/tasks/999999/comments", json={"body": "hi"}).status_code == 404
    assert api.request("POST", "/api/runs/999999/stop").status_code == 404
    task = api.create_task("unassigned", "nobody works on this")
    assert api.request("POST", f"/api/tasks/{task.id}/comments", json={"body": ""}).status_code == 422
    assert api.task(task.id).comments == []
    with pytest.raises(ProductApiError) as raised:
        api.task(999999)
    assert raised.value.status_code == 404


@pytest.mark.pace(0.5)
def test_run_token_only_works_for_its_own_run(fresh_testbed: TestbedInstance) -> None:
    api = fresh_testbed.api
    first = api.create_task(BUILD_TASK_TITLE, BUILD_TASK, assignee_id=new_agent(api).id)
    second = api.create_task(BUILD_TASK_TITLE, BUILD_TASK, assignee_id=new_agent(api).id)
    run_a = api.wait_for_active_run(first.id)
    run_b = api.wait_for_active_run(second.id)
    token = runner_token(run_a.identity.pid or 0)
    auth = {"Authorization": f"Bearer {token}"}

    assert api.request("GET", f"/api/agent/runs/{run_a.id}/context", headers=auth).status_code == 200
    for method, path, body in (
        ("GET", f"/api/agent/runs/{run_b.id}/context", None),
        ("POST", f"/api/agent/runs/{run_b.id}/inbox", {"event_id": "probe-inbox-1"}),
        ("POST", f"/api/agent/runs/{run_b.id}/comments", {"event_id": "probe-comment-1", "body": "intruder"}),
        ("GET", f"/api/agent/runs/{run_a.id}/tasks/{second.id}", None),
    ):
        assert api.request(method, path, json=body, headers=auth).status_code == 403, path
    assert api.request("GET", f"/api/agent/runs/{run_a.id}/context").status_code == 401
    assert (
        api.request("GET", f"/api/agent/runs/{run_a.id}/context", headers={"Authorization": "Bearer nope"}).status_code
        == 401
    )
    assert all(c.body != "intruder" for c in api.task(second.id).comments)

    # The same event twice (a runner retrying after a lost answer) is applied once.
    receipt = {"event_id": "probe-receipt-1", "seq": 10_000, "tool": "probe", "target": "replay"}
    answers = [
        api.request("POST", f"/api/agent/runs/{run_a.id}/receipts", json=receipt, headers=auth) for _ in range(2)
    ]
    assert [a.status_code for a in answers] == [201, 201] and answers[0].json() == answers[1].json()
    assert [r.tool for r in api.run(run_a.id).receipts].count("probe") == 1


def test_company_activity_and_schema_are_public(api: ApiClient) -> None:
    company = api.company()
    assert company.budget_cents > 0 and company.spend_cents >= 0
    agent = new_agent(api)
    assert any(a.kind == "agent_created" and agent.name in a.message for a in api.activity())
    paths = api.request("GET", "/openapi.json").json()["paths"]
    assert {"/api/tasks/{task_id}", "/api/runs/{run_id}/stop", "/api/deliveries/{delivery_id}/download"} <= set(paths)
