"""Bad input to a real testbed process: every case a 4xx with a clear message, nothing changed."""

from __future__ import annotations

import importlib
import io
import json
import re
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.routing import APIRoute
from product_helpers import new_agent, raw_exchange, runner_token

from harness.agents.environment import minimal_environment
from harness.products.testbed import ApiClient, TestbedInstance
from harness.testbed import agent_api, models, web
from harness.testbed import api as public_api
from harness.testbed.body_deadline import ENV as BODY_TIMEOUT_ENV
from oracle.tasks.slugify.contract import BUILD_TASK, BUILD_TASK_TITLE
from tests.command_line import Ended, assert_refused, ended, never_starts, put_a_file_in_the_way
from tests.needs import marked

HUGE = 2**63
INT_BODY_FIELDS = {  # every integer a request body carries, by route
    ("POST", "/api/agents"): {"name": "Huge", "reports_to": HUGE},
    ("POST", "/api/tasks"): {"title": "huge", "assignee_id": HUGE},
    ("POST", "/api/tasks", "parent"): {"title": "huge", "parent_id": HUGE},
    ("POST", "/api/agent/runs/{run_id}/receipts"): {"event_id": "huge-seq-1", "seq": HUGE, "tool": "probe"},
    ("POST", "/api/agent/runs/{run_id}/finish"): {
        "event_id": "huge-cost-1",
        "outcome": "succeeded",
        "cost_cents": HUGE,
    },
}


def routes_with_ids() -> list[tuple[str, str]]:
    """Every (method, path) of the product whose path carries an integer id."""
    found = []
    for router in (public_api.router, agent_api.router, web.router):
        for route in router.routes:
            assert isinstance(route, APIRoute)
            if "_id}" in route.path:
                found += [(method, route.path) for method in sorted(route.methods)]
    return found


@pytest.fixture(scope="module")
def live_run(testbed: TestbedInstance) -> tuple[int, dict[str, str]]:
    """A run that stays running, and its runner's bearer header.

    The lead delegates to a teammate who leaves the child in review, so the
    lead waits on it (reading only) until the instance is torn down.
    """
    client = testbed.api
    teammate = new_agent(client, model="leaves-in-review")
    lead = new_agent(client)
    task = client.create_task(
        "wait for a teammate", f"Ask your teammate {teammate.name} to say hello.", assignee_id=lead.id
    )
    run = client.wait_for_active_run(task.id)
    client.wait_for_receipt(run.id, "wait_for_task")
    [child] = client.task(task.id).children
    client.wait_for_task(child.id, lambda t: t.status == "in_review" and t.settled)
    return run.id, {"Authorization": f"Bearer {runner_token(run.identity.pid or 0)}"}


def auth_line(auth: dict[str, str]) -> str:
    return "".join(f"{name}: {value}\r\n" for name, value in auth.items())


def snapshot(api: ApiClient) -> tuple[int, int, int]:
    return len(api.agents()), len(api.tasks()), len(api.activity())


@pytest.mark.parametrize(("method", "path"), routes_with_ids(), ids=lambda v: str(v))
def test_a_huge_id_in_any_path_is_a_422(
    api: ApiClient, method: str, path: str, live_run: tuple[int, dict[str, str]]
) -> None:
    before = snapshot(api)
    run_id, auth = live_run
    huge = re.sub(r"\{\w+_id\}", str(HUGE), path)
    headers = {**(auth if "/agent/" in path else {}), "Origin": api.base_url}
    answer = api.request(method, huge, headers=headers, json={"event_id": "huge-path-1"})
    assert answer.status_code == 422, (huge, answer.status_code, answer.text)
    assert str(HUGE) in answer.text or "less than or equal" in answer.text
    if "/agent/" in path and path.count("_id}") > 1:  # the run id valid, the other id huge
        inner = path.replace("{run_id}", str(run_id))
        inner = re.sub(r"\{\w+_id\}", str(HUGE), inner)
        assert api.request(method, inner, headers=auth).status_code == 422
    assert snapshot(api) == before


@pytest.mark.parametrize("case", list(INT_BODY_FIELDS), ids=lambda v: "-".join(v))
def test_a_huge_integer_in_any_body_field_is_a_422(
    api: ApiClient, case: tuple[str, ...], live_run: tuple[int, dict[str, str]]
) -> None:
    run_id, auth = live_run
    before, run_before = snapshot(api), api.run(run_id)
    path = case[1].replace("{run_id}", str(run_id))
    answer = api.request(case[0], path, json=INT_BODY_FIELDS[case], headers=auth if "/agent/" in path else {})
    assert answer.status_code == 422, answer.text
    [field] = [k for k, v in INT_BODY_FIELDS[case].items() if v == HUGE]
    assert field in answer.text
    assert snapshot(api) == before and api.run(run_id) == run_before
    assert api.request("GET", f"/api/runs?task_id={HUGE}").status_code == 422


MODEL_CALL = {"protocol": "openai", "provider": "openai", "model": "m", "status": 200, "usage": None}
MODEL_CALL |= {"cost_cents": 1.0, "simulated": True, "price_table": "replay"}
FLOAT_BODY_FIELDS = {  # every float a request body carries, by route, with the rest of a valid body
    ("/api/agent/runs/{run_id}/finish", "agent_reported_cost_usd"): {"outcome": "succeeded"},
    ("/api/agent/runs/{run_id}/model-calls", "cost_cents"): MODEL_CALL,
    ("/api/agent/runs/{run_id}/model-calls", "spent_cents"): MODEL_CALL,
    ("/api/agent/runs/{run_id}/model-calls", "budget_cents"): MODEL_CALL,
}


def test_every_float_a_request_carries_is_covered_below() -> None:
    floats = {
        name
        for model in (models.FinishRequest, models.ModelCallReport)
        for name, field in model.model_fields.items()
        if "float" in str(field.annotation)
    }
    every = {
        name
        for model in vars(models).values()
        if isinstance(model, type) and issubclass(model, models.Strict)
        for name, field in model.model_fields.items()
        if "float" in str(field.annotation)
    }
    assert every == floats == {field for _, field in FLOAT_BODY_FIELDS}


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity"])
@pytest.mark.parametrize("case", list(FLOAT_BODY_FIELDS), ids=lambda v: "-".join(v).rsplit("/", 1)[-1])
def test_a_non_finite_number_in_any_body_field_is_a_422(
    api: ApiClient, case: tuple[str, str], number: str, live_run: tuple[int, dict[str, str]]
) -> None:
    """JSON has no NaN or Infinity, but Python's parser takes them: spend would sum to nan and pass any budget."""
    run_id, auth = live_run
    before, run_before = snapshot(api), api.run(run_id)
    path, field = case
    body = json.dumps({"event_id": f"non-finite-{field}", **FLOAT_BODY_FIELDS[case], field: "NUMBER"})
    answer = api.request(
        "POST",
        path.replace("{run_id}", str(run_id)),
        content=body.replace('"NUMBER"', number),
        headers={**auth, "Content-Type": "application/json"},
    )
    assert answer.status_code == 422, answer.text
    assert field in answer.text and "finite" in answer.text
    assert snapshot(api) == before and api.run(run_id) == run_before


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/agents", '{"name": "\\udc00x"}'),
        ("/api/tasks", '{"title": "\\udc00"}'),
        ("/api/agents", '{"name": "Ok", "\\udc00": 1}'),
    ],
)
def test_a_lone_surrogate_in_a_body_is_a_422_that_names_it(api: ApiClient, path: str, body: str) -> None:
    """JSON may spell half a UTF-16 pair; the 422 that refuses it must still be writable as UTF-8."""
    before = snapshot(api)
    answer = api.request("POST", path, content=body, headers={"Content-Type": "application/json"})
    assert answer.status_code == 422, answer.text
    assert "\\udc00" in answer.text
    assert snapshot(api) == before


def form_post(testbed: TestbedInstance, path: str, data: dict[str, str], origin: str | None = "same") -> httpx.Response:
    headers = {} if origin is None else {"Origin": testbed.base_url if origin == "same" else origin}
    return httpx.post(f"{testbed.base_url}{path}", data=data, headers=headers, follow_redirects=False)


@pytest.mark.parametrize(
    ("path", "data", "field"),
    [
        ("/agents", {"name": "FormAbc", "reports_to": "abc"}, "reports_to"),
        ("/agents", {"name": "FormHuge", "reports_to": str(HUGE)}, "reports_to"),
        ("/tasks", {"title": "form abc", "assignee_id": "abc"}, "assignee_id"),
        ("/tasks", {"title": "form huge", "assignee_id": str(HUGE)}, "assignee_id"),
        ("/agents", {"name": "FormDash", "model": "--help"}, "model"),
    ],
)
def test_bad_ids_and_models_in_web_forms_are_a_422_page(
    testbed: TestbedInstance, path: str, data: dict[str, str], field: str
) -> None:
    before = snapshot(testbed.api)
    answer = form_post(testbed, path, data)
    assert answer.status_code == 422 and field in answer.text
    assert 'data-testid="' in answer.text  # the page itself, with its error shown
    assert snapshot(testbed.api) == before


@pytest.mark.parametrize("model", ["--help", "-x", "a b", "x" * 81, "m;rm", ""])
def test_an_agent_model_that_could_become_an_option_is_refused(api: ApiClient, model: str) -> None:
    before = snapshot(api)
    answer = api.request("POST", "/api/agents", json={"name": f"Model{len(model)}x", "model": model})
    assert answer.status_code == 422 and "model" in answer.text
    assert snapshot(api) == before


def test_sane_model_names_are_accepted_and_reach_the_runner_as_one_value(api: ApiClient) -> None:
    agent = new_agent(api, model="vendor/model-1.5:latest")
    task = api.create_task("hello", "Just say hello.", assignee_id=agent.id)
    done = api.wait_until_done(task.id)
    assert done.runs[-1].status == "succeeded"
    assert api.request("GET", f"/api/runs/{done.runs[-1].id}").json()["model"] == "vendor/model-1.5:latest"


@pytest.mark.parametrize("origin", ["http://evil.example", "null"])
def test_cross_site_form_posts_are_refused(testbed: TestbedInstance, origin: str) -> None:
    api = testbed.api
    agent = new_agent(api)
    task = api.create_task("cross-site", "", assignee_id=None)
    before = snapshot(api)
    for path, data in (
        ("/agents", {"name": "Intruder"}),
        ("/tasks", {"title": "planted", "assignee_id": str(agent.id)}),
        (f"/tasks/{task.id}/comments", {"body": "planted"}),
    ):
        answer = form_post(testbed, path, data, origin=origin)
        assert answer.status_code == 403 and "cross-site" in answer.text, path
        referer_only = httpx.post(f"{testbed.base_url}{path}", data=data, headers={"Referer": f"{origin}/page"})
        assert referer_only.status_code == 403, path
        assert form_post(testbed, path, data, origin=None).status_code == 403, "a form post must name its origin"
    json_api = api.request("POST", "/api/tasks", json={"title": "planted"}, headers={"Origin": origin})
    assert json_api.status_code == 403
    assert snapshot(api) == before and api.task(task.id).comments == []
    # Same-origin posts (what the real browser sends) still work.
    assert form_post(testbed, f"/tasks/{task.id}/comments", {"body": "mine"}).status_code == 303
    assert [c.body for c in api.task(task.id).comments] == ["mine"]


@pytest.mark.pace(0.05)
def test_a_finished_runs_token_reads_and_uploads_nothing(fresh_testbed: TestbedInstance) -> None:
    api = fresh_testbed.api
    task = api.create_task(BUILD_TASK_TITLE, BUILD_TASK, assignee_id=new_agent(api).id)
    run = api.wait_for_active_run(task.id)
    auth = {"Authorization": f"Bearer {runner_token(run.identity.pid or 0)}"}
    api.wait_until_done(task.id)
    blobs = sorted((fresh_testbed.data_dir / "deliveries").iterdir())
    delivered = len(api.task(task.id).deliveries)

    base = f"/api/agent/runs/{run.id}"
    assert api.request("GET", f"{base}/context", headers=auth).status_code == 409
    assert api.request("GET", f"{base}/tasks/{task.id}", headers=auth).status_code == 409
    zipped = io.BytesIO()
    with zipfile.ZipFile(zipped, "w") as archive:
        archive.writestr("other.txt", "planted by a leaked token")
    late = api.request(
        "POST",
        f"{base}/deliveries",
        headers=auth,
        data={"event_id": "late-upload-1"},
        files={"file": ("d.zip", zipped.getvalue(), "application/zip")},
    )
    assert late.status_code == 409 and "can no longer act" in late.text
    assert sorted((fresh_testbed.data_dir / "deliveries").iterdir()) == blobs
    assert len(api.task(task.id).deliveries) == delivered


def test_an_upload_larger_than_a_delivery_is_refused_while_streaming(
    api: ApiClient, live_run: tuple[int, dict[str, str]], testbed: TestbedInstance
) -> None:
    run_id, auth = live_run
    blobs = sorted((testbed.data_dir / "deliveries").glob("*")) if (testbed.data_dir / "deliveries").exists() else []

    def endless() -> Iterator[bytes]:
        chunk = b"x" * (1 << 20)
        for _ in range(64):  # 64 MiB, sent without a Content-Length
            yield chunk

    headers = {**auth, "content-type": "multipart/form-data; boundary=xyz"}
    try:
        answer = httpx.post(
            f"{testbed.base_url}/api/agent/runs/{run_id}/deliveries", content=endless(), headers=headers, timeout=30
        )
        assert answer.status_code == 413 and "larger than" in answer.text
    except httpx.TransportError:
        pass  # the server answered 413 and closed while we were still sending: also refused
    head = (
        f"POST /api/agent/runs/{run_id}/deliveries HTTP/1.1\r\nHost: 127.0.0.1\r\n{auth_line(auth)}"
        f"Content-Type: multipart/form-data; boundary=xyz\r\nContent-Length: {1 << 30}\r\n\r\n"
    )
    assert raw_exchange(testbed.port, head.encode()).startswith(b"HTTP/1.1 413")
    after = sorted((testbed.data_dir / "deliveries").glob("*")) if (testbed.data_dir / "deliveries").exists() else []
    assert after == blobs and api.run(run_id).status == "running"


@pytest.mark.controller_env(**{BODY_TIMEOUT_ENV: "1"})
def test_a_body_that_never_finishes_is_answered_408(testbed_with_env: TestbedInstance) -> None:
    before = snapshot(testbed_with_env.api)
    answer = raw_exchange(
        testbed_with_env.port,
        b"POST /api/tasks HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"title": ',
    )
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
    assert b"not received within 1 s" in answer
    assert snapshot(testbed_with_env.api) == before


@pytest.mark.pace(0.3)
@pytest.mark.controller_env(
    OPENAI_API_KEY="sk-leak-test-1234", ANTHROPIC_API_KEY="sk-ant-leak", TESTBED_TEST_FAULTS="none"
)
def test_runners_get_a_minimal_environment(testbed_with_env: TestbedInstance) -> None:
    api = testbed_with_env.api
    task = api.create_task(BUILD_TASK_TITLE, BUILD_TASK, assignee_id=new_agent(api).id)
    run = api.wait_for_active_run(task.id)
    names = {
        e.split(b"=", 1)[0].decode() for e in Path(f"/proc/{run.identity.pid}/environ").read_bytes().split(b"\0") if e
    }
    assert "TESTBED_RUN_TOKEN" in names and "PATH" in names
    assert not names & {"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "TESTBED_TEST_FAULTS"}, names
    assert names <= {"PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "PYTHONPATH", "TESTBED_RUN_TOKEN"}
    api.wait_until_done(task.id)


def test_the_agents_test_subprocess_environment_is_the_allow_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-leak-test")
    monkeypatch.setenv("LANG", "C.UTF-8")
    env = minimal_environment(PYTHONDONTWRITEBYTECODE="1")
    assert "OPENAI_API_KEY" not in env and env["LANG"] == "C.UTF-8" and env["PYTHONDONTWRITEBYTECODE"] == "1"
    assert env["PATH"]


SERVE = ["harness.testbed", "serve", "--data", "data", "--port", "0"]
METERING = ["harness.agents.metering", "--upstream", "http://127.0.0.1:9", "--provider", "openai", "--client-key", "k"]
STARTS = {  # what each server's main does first once its command line is taken
    "harness.testbed": "harness.testbed.__main__.configure_logging",
    "harness.agents.metering": "harness.agents.metering.__main__.MeteringProxy",
    "harness.replay": "harness.replay.__main__.create_app",
}


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ([*SERVE, "--port", "99999"], "99999 is not a port (0 to 65535)"),
        ([*SERVE, "--port", "http"], "not a port number: 'http'"),
        ([*SERVE, "--pace", "inf"], "inf is not a positive, finite number of seconds"),
        ([*SERVE, "--pace=-1"], "-1 is not a positive, finite number of seconds"),
        ([*SERVE, "--agent-time-limit", "nan"], "nan is not a positive, finite number of seconds"),
        ([*SERVE, "--data", "a-file"], "--data a-file is a file, not a folder"),
        ([*SERVE, "--data", "a-file/data"], "--data a-file/data: Not a directory"),
        ([*METERING, "--port", "99999"], "99999 is not a port (0 to 65535)"),
        ([*METERING, "--budget-cents", "nan"], "nan is not a finite number of cents, 0 or more"),
        ([*METERING, "--budget-cents=-5"], "-5 is not a finite number of cents, 0 or more"),
        ([*METERING, "--upstream", "127.0.0.1:9"], "--upstream: '127.0.0.1:9' is not an http:// or https:// URL"),
        (["harness.replay", "--port", "99999"], "--port 99999 is not a port (0 to 65535)"),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else None,
)
def test_a_bad_server_command_line_is_one_clear_line(
    tmp_path: Path,
    args: list[str],
    says: str,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    """Before, a port out of range or a data folder under a file ended in a traceback; an infinite pace or a NaN
    budget was taken, and a budget with it meant nothing. The server's ``main`` is called in this process."""
    before = put_a_file_in_the_way(tmp_path)
    monkeypatch.chdir(tmp_path)
    module, *argv = args
    never_starts(monkeypatch, STARTS[module])
    done = ended(importlib.import_module(f"{module}.__main__").main, argv, capfd)
    assert_refused(done, says, tmp_path, before)


@marked("product")
@pytest.mark.parametrize(
    ("args", "says"),
    [
        ([*SERVE, "--data", "a-file/data"], "--data a-file/data: Not a directory"),
        ([*METERING, "--upstream", "127.0.0.1:9"], "--upstream: '127.0.0.1:9' is not an http:// or https:// URL"),
        (["harness.replay", "--port", "99999"], "--port 99999 is not a port (0 to 65535)"),
    ],
    ids=lambda v: v[0] if isinstance(v, list) else None,
)
def test_python_m_ends_as_the_servers_main_does(tmp_path: Path, args: list[str], says: str) -> None:
    """One real interpreter per server: exit 2, the reason last, no traceback, nothing written."""
    before = put_a_file_in_the_way(tmp_path)
    done = subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert_refused(Ended.of(done), says, tmp_path, before)
