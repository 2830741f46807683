"""What an agent CLI in a sandbox stands on: a loopback port relayed to a Unix socket, and its native program.

The relay carries a real HTTP server on a real Unix socket (uvicorn, as the
host's metering proxy is served), both ways, a streamed answer included; a
socket nobody serves is a closed connection, as a refused port would be.
Where there is no node, a CLI whose command is a node script is located as
its native program, and one whose native program is missing is a one-line
error naming `make agents`.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse
from starlette.routing import Route

from harness.agents.install import MissingCli, locate
from harness.agents.loopback import LoopbackServer, UnixRelay
from harness.agents.registry import cli


async def echo(request: Request) -> JSONResponse:
    return JSONResponse({"path": request.url.path, "body": (await request.body()).decode()})


async def chunks(request: Request) -> StreamingResponse:
    async def parts() -> AsyncIterator[bytes]:
        for index in range(3):
            yield f"data: {index}\n\n".encode()

    return StreamingResponse(parts(), media_type="text/event-stream")


def test_a_relayed_port_carries_requests_and_streams_to_the_socket(tmp_path: Path) -> None:
    app = Starlette(routes=[Route("/echo/{rest:path}", echo, methods=["POST"]), Route("/stream", chunks)])
    socket = tmp_path / "s.sock"
    with LoopbackServer(app, unix_socket=socket):
        relay = UnixRelay(str(socket)).start()
        with httpx.Client(base_url=relay.url) as client:
            answer = client.post("/echo/v1/responses", content="x" * 200_000)
            assert answer.json() == {"path": "/echo/v1/responses", "body": "x" * 200_000}
            with client.stream("GET", "/stream") as streamed:
                assert "".join(streamed.iter_text()) == "data: 0\n\ndata: 1\n\ndata: 2\n\n"
    assert socket.stat().st_mode & 0o777 == 0o666  # a sandbox's user (nobody) may connect


def test_a_relay_to_a_socket_nobody_serves_closes_the_connection(tmp_path: Path) -> None:
    relay = UnixRelay(str(tmp_path / "nobody.sock")).start()
    with pytest.raises(httpx.TransportError):
        httpx.get(relay.url, timeout=5)


def _installed(folder: Path, name: str) -> Path:
    """A CLI's install as npm lays it out: its package.json at the pinned version and its command."""
    entry = cli(name)
    package = folder / "node_modules" / entry.package
    package.mkdir(parents=True)
    (package / "package.json").write_text(json.dumps({"version": entry.version}))
    command = folder / "node_modules" / ".bin" / entry.binary
    command.parent.mkdir(parents=True, exist_ok=True)
    command.write_text("#!/usr/bin/env node\n")
    return command


def test_without_node_a_cli_whose_command_is_a_node_script_is_its_native_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    command = _installed(tmp_path, "codex")
    assert locate("codex", tmp_path).binary == command  # node on the path: the command npm installed
    monkeypatch.setenv("PATH", str(tmp_path / "no-node-here"))
    with pytest.raises(MissingCli, match="no native program .* run `make agents`"):
        locate("codex", tmp_path)
    native = tmp_path / "node_modules" / cli("codex").native
    native.parent.mkdir(parents=True)
    native.write_bytes(b"\x7fELF")
    assert locate("codex", tmp_path).binary == native
    claude = _installed(tmp_path, "claude")
    assert locate("claude", tmp_path).binary == claude  # its command is its native program already
