"""The runner's HTTP to the agent API (harness.agents.api_wire) against a real uvicorn server, by port and by socket.

The delivery's multipart body is read by the controller's own form reader;
everything else a runner sends is JSON with its bearer token.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI, HTTPException, Request

from harness.agents.api_wire import ApiWire, Unreachable, form_body, json_body
from harness.agents.loopback import LoopbackServer
from harness.testbed.agent_api import delivery_form

PREFIX = "/api/agent/runs/7"


def _app() -> FastAPI:
    app = FastAPI()

    @app.post(f"{PREFIX}/echo")
    async def echo(request: Request) -> dict[str, object]:
        return {"json": await request.json(), "authorization": request.headers.get("authorization")}

    @app.get(f"{PREFIX}/missing")
    def missing() -> None:
        raise HTTPException(status_code=409, detail="this run can no longer act")

    @app.post(f"{PREFIX}/deliveries")
    async def deliveries(request: Request) -> dict[str, object]:
        event_id, data = await delivery_form(request, await request.body())
        return {"event_id": event_id, "data": data.decode("latin-1")}

    return app


@pytest.fixture(params=["tcp", "unix"])
def wire(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ApiWire]:
    unix = tmp_path / "agent.sock" if request.param == "unix" else None
    with LoopbackServer(_app(), unix_socket=unix) as server:
        base = "http://controller" if unix else server.url
        client = ApiWire(f"{base}{PREFIX}", {"Authorization": "Bearer run-token"}, 5.0, str(unix) if unix else None)
        yield client
        client.close()


def test_json_goes_with_the_token_and_comes_back_request_after_request(wire: ApiWire) -> None:
    for n in range(3):
        answer = wire.request("POST", "/echo", json_body({"event_id": f"r7-{n}", "body": "héllo"}))
        assert answer.status_code == 200
        assert answer.json() == {"json": {"event_id": f"r7-{n}", "body": "héllo"}, "authorization": "Bearer run-token"}
    assert answer.path == f"{PREFIX}/echo" and answer.method == "POST"


def test_a_refusal_is_an_answer_with_its_status_and_text(wire: ApiWire) -> None:
    answer = wire.request("GET", "/missing")
    assert answer.status_code == 409 and "can no longer act" in answer.text


def test_a_delivery_arrives_whole_through_the_controllers_form_reader(wire: ApiWire) -> None:
    data = bytes(range(256)) * 1024 + b"\r\n--not-the-boundary--\r\n"  # larger than one write, with a fake boundary
    answer = wire.request(
        "POST", "/deliveries", form_body({"event_id": "r7-upload"}, "file", "d.zip", data, "application/zip")
    )
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"event_id": "r7-upload", "data": data.decode("latin-1")}


def test_no_server_is_unreachable_not_an_answer(tmp_path: Path) -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    with pytest.raises(Unreachable):
        ApiWire(f"http://127.0.0.1:{port}{PREFIX}", {}, 2.0).request("GET", "/context")
    with pytest.raises(Unreachable):
        ApiWire(f"http://controller{PREFIX}", {}, 2.0, str(tmp_path / "gone.sock")).request("GET", "/context")


def test_only_plain_http_is_spoken() -> None:
    with pytest.raises(ValueError, match="plain http"):
        ApiWire("https://controller.example/api", {}, 2.0)
