"""The controller's server stops when told to, not at its next tick, and still lets a response in progress finish
and the app's own shutdown run (harness.testbed.live.LiveServer)."""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import httpx
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from harness.products.processes import free_port
from harness.testbed import live
from harness.testbed.db import Database
from harness.testbed.live import LiveChanges, LiveServer

WAIT_S = 600.0  # only a hang reaches it


class _App:
    """A Starlette app whose one route holds its response until the test releases it; it notes its own shutdown."""

    def __init__(self) -> None:
        self.request_arrived = threading.Event()
        self.release = threading.Event()
        self.shut_down = threading.Event()
        self.asgi = Starlette(routes=[Route("/held", self.held)], lifespan=self.lifespan)

    async def held(self, request: Request) -> PlainTextResponse:
        self.request_arrived.set()
        await asyncio.to_thread(self.release.wait, WAIT_S)
        return PlainTextResponse("finished")

    @asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        yield
        self.shut_down.set()


@contextmanager
def _serving(app: _App, tmp_path: Path) -> Iterator[tuple[LiveServer, threading.Thread, str]]:
    port = free_port()
    changes = LiveChanges(Database(tmp_path / "testbed.sqlite3").path)
    server = LiveServer(uvicorn.Config(app.asgi, host="127.0.0.1", port=port, log_level="warning"), changes)
    thread = threading.Thread(target=server.run, name="live-server", daemon=True)
    thread.start()
    try:
        yield server, thread, f"http://127.0.0.1:{port}"
    finally:
        app.release.set()
        server.should_exit = True
        thread.join(WAIT_S)


def _started(server: LiveServer) -> None:
    """Until the server listens (a state, not a sleep: it looks every 10 ms)."""
    never = threading.Event()
    while not server.started:
        never.wait(0.01)


def test_a_signal_to_stop_ends_the_server_without_waiting_for_its_tick(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(live, "TICK_S", WAIT_S)  # only the signal itself can end the wait between ticks
    app = _App()
    with _serving(app, tmp_path) as (server, thread, _):
        _started(server)
        server.handle_exit(signal.SIGTERM, None)
        thread.join(WAIT_S)
        assert not thread.is_alive(), "the server still waited for its next tick"
    assert app.shut_down.is_set(), "the app's own shutdown did not run"


def test_a_response_in_progress_finishes_before_the_server_stops(tmp_path: Path) -> None:
    app = _App()
    with _serving(app, tmp_path) as (server, thread, url):
        _started(server)
        answers: list[httpx.Response] = []
        asking = threading.Thread(target=lambda: answers.append(httpx.get(f"{url}/held", timeout=WAIT_S)))
        asking.start()
        assert app.request_arrived.wait(WAIT_S)
        server.handle_exit(signal.SIGTERM, None)
        assert thread.is_alive() and not app.shut_down.is_set(), "the server stopped under a response in progress"
        app.release.set()
        asking.join(WAIT_S)
        thread.join(WAIT_S)
    assert [(answer.status_code, answer.text) for answer in answers] == [(200, "finished")]
    assert app.shut_down.is_set()
