"""A real replay server on loopback for the model judge's tests: its judge scripts answer over the wire."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from harness.agents.loopback import LoopbackServer
from harness.replay.server import create_app


@pytest.fixture(scope="module")
def replay_url() -> Iterator[str]:
    server = LoopbackServer(create_app("build")).start()
    yield server.url
    server.stop()


@pytest.fixture
def calls(replay_url: str):
    """How many judge calls reached the replay so far (read again after acting)."""
    import httpx

    return lambda: sum(
        1
        for call in httpx.get(f"{replay_url}/replay/calls").json()
        if call["script"] and call["script"].startswith("judge")
    )
