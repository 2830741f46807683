"""Fixtures for the replay and metering tests: a real replay server on loopback, per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from harness.agents.loopback import LoopbackServer
from harness.replay.server import Call, create_app


class Replay:
    """A running replay server and what reached it (the 'provider' side of the proxy)."""

    def __init__(self, server: LoopbackServer) -> None:
        self.server = server
        self.url = server.url

    def calls(self) -> list[Call]:
        return self.server.app.state.calls.all()


@pytest.fixture
def replay() -> Iterator[Replay]:
    server = LoopbackServer(create_app("build")).start()
    yield Replay(server)
    server.stop()
