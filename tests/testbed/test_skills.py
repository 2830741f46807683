"""The company skill library on a real controller: the scripted agent's one skill, the agent route
(once per event_id, bad input a 4xx naming the field), the MCP tool, and the public reads."""

from __future__ import annotations

import pytest

from harness.products.testbed import ApiClient, TestbedInstance
from stories.create_skill_studio import SKILL_REQUEST, SKILL_TASK_TITLE
from tests.testbed.product_helpers import new_agent, runner_token, start_build
from tests.testbed.test_mcp_tools import call


def test_the_scripted_agent_creates_one_skill_named_from_the_request(api: ApiClient) -> None:
    before = {s.id for s in api.skills()}
    task = api.create_task(SKILL_TASK_TITLE, SKILL_REQUEST, assignee_id=new_agent(api).id)
    api.wait_until_done(task.id)
    [created] = [s for s in api.skills() if s.id not in before]
    assert created.name == "How we write release notes" and created.slug.startswith("how-we-write-release-notes")
    skill = api.skill(created.id)
    assert skill.version == 1 and skill.body.startswith("# How we write release notes")
    assert [entry["skill"]["id"] for entry in api.request("GET", f"/api/tasks/{task.id}/skills").json()] == [created.id]

    saved = api.request("POST", f"/api/skills/{created.id}/versions", json={"body": "# Edited\r\nline two"})
    assert saved.status_code == 201 and saved.json()["version"] == 2
    assert api.skill(created.id).body == "# Edited\nline two" and api.skill(created.id).slug == created.slug


@pytest.mark.parametrize(
    ("method", "path", "payload", "status"),
    [
        ("GET", "/api/skills/999999", None, 404),
        ("POST", "/api/skills/999999/versions", {"body": "x"}, 404),
        ("GET", "/api/tasks/999999/skills", None, 404),
        ("GET", "/api/skills/0", None, 422),
    ],
)
def test_bad_skill_requests_are_refused(api: ApiClient, method: str, path: str, payload: object, status: int) -> None:
    response = api.request(method, path, json=payload)
    assert response.status_code == status, response.text


@pytest.mark.pace(1.0)
def test_the_agent_route_applies_a_create_once_and_the_mcp_tool_creates_another(
    fresh_testbed: TestbedInstance,
) -> None:
    api = fresh_testbed.api
    task, run = start_build(api)
    token = runner_token(run.identity.pid)
    route = f"/api/agent/runs/{run.id}/skills"
    headers = {"authorization": f"Bearer {token}"}
    payload = {"event_id": "skill-event-0001", "name": "Deploy checklist", "body": "# Deploy\n"}
    first = api.request("POST", route, json=payload, headers=headers)
    again = api.request("POST", route, json=payload, headers=headers)
    assert first.status_code == again.status_code == 201 and first.json() == again.json()
    assert api.request("POST", route, json=payload).status_code == 401
    empty = api.request("POST", route, json={**payload, "event_id": "skill-event-0002", "name": ""}, headers=headers)
    assert empty.status_code == 422 and "name" in empty.text

    [(error, text)] = call(fresh_testbed, token, ("create_skill", {"name": "Deploy checklist", "body": "# Again\n"}))
    assert not error and text.startswith("skill ")
    library = [s for s in api.skills() if s.name == "Deploy checklist"]
    assert len(library) == 2 and len({s.slug for s in library}) == 2, "same heading, distinct ids and slugs"
    sidebar = api.request("GET", f"/api/tasks/{task.id}/skills").json()
    assert sorted(entry["skill"]["id"] for entry in sidebar) == sorted(s.id for s in library)


@pytest.mark.pace(1.0)
def test_a_skill_another_task_reads_is_listed_there_as_used(fresh_testbed: TestbedInstance) -> None:
    api = fresh_testbed.api
    _, author = start_build(api)
    headers = {"authorization": f"Bearer {runner_token(author.identity.pid)}"}
    payload = {"event_id": "skill-event-0100", "name": "Release checklist", "body": "# Release\n"}
    created = api.request("POST", f"/api/agent/runs/{author.id}/skills", json=payload, headers=headers).json()["id"]

    reader_task, reader = start_build(api)
    token = runner_token(reader.identity.pid)
    use = f"/api/agent/runs/{reader.id}/skills/{created}/use"
    assert api.request("POST", use, json={"event_id": "skill-use-0001"}, headers=headers).status_code == 403
    missing = f"/api/agent/runs/{reader.id}/skills/999999/use"
    reader_headers = {"authorization": f"Bearer {token}"}
    assert api.request("POST", missing, json={"event_id": "skill-use-0002"}, headers=reader_headers).status_code == 404
    [(listed_error, listed), (error, text)] = call(
        fresh_testbed, token, ("list_skills", {}), ("read_skill", {"skill_id": created})
    )
    assert not listed_error and '"Release checklist"' in listed
    assert not error and "# Release" in text
    sidebar = api.request("GET", f"/api/tasks/{reader_task.id}/skills").json()
    assert [(entry["skill"]["id"], entry["relation"]) for entry in sidebar] == [(created, "used")]


def test_studio_form_saves_a_version_and_refuses_an_empty_body_or_another_origin(api: ApiClient) -> None:
    task = api.create_task(SKILL_TASK_TITLE, SKILL_REQUEST, assignee_id=new_agent(api).id)
    api.wait_until_done(task.id)
    [entry] = api.request("GET", f"/api/tasks/{task.id}/skills").json()
    skill_id, url = entry["skill"]["id"], f"/skills/{entry['skill']['id']}"
    own = {"origin": api.base_url}

    empty = api.request("POST", url, data={"body": "  "}, headers=own)
    assert empty.status_code == 422 and 'data-testid="studio-error"' in empty.text
    foreign = api.request("POST", url, data={"body": "# Elsewhere"}, headers={"origin": "http://evil.example"})
    assert foreign.status_code == 403
    assert api.skill(skill_id).version == 1

    saved = api.request("POST", url, data={"body": "# Ours\r\nline"}, headers=own)
    assert saved.status_code == 303 and saved.headers["location"] == f"{url}?saved=true"
    assert api.skill(skill_id).body == "# Ours\nline" and api.skill(skill_id).version == 2
