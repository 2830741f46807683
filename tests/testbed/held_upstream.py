"""A model upstream that holds one answer mid-stream: the moment a Stop must not lose a model call.

It sits between a run's metering proxy and the real replay server. Every
request is forwarded to the replay and its answer relayed, except the
``hold``-th model call's streamed answer: its first event is relayed, then the
rest waits until :meth:`HeldUpstream.release` (or until the client goes away).
The replay has answered that call by then (a real provider would bill it),
yet the proxy has not seen its end: exactly where a Stop used to make a call
go unmetered. Deterministic, unlike waiting for a Stop to land mid-call.
"""

from __future__ import annotations

import asyncio
import threading

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from harness.running.model_server import MODEL_PATHS

PASSED_HEADERS = ("content-type", "cache-control")


class HeldUpstream:
    """The ASGI ``app``; ``holding`` is set once the held call's first event has gone out."""

    def __init__(self, replay_url: str, hold: int) -> None:
        self.replay_url = replay_url.rstrip("/")
        self.hold = hold
        self.model_calls = 0
        self.holding = threading.Event()
        self._released = threading.Event()
        self._lock = threading.Lock()
        self.app = Starlette(routes=[Route("/{path:path}", self.forward, methods=["GET", "POST"])])

    def release(self) -> None:
        self._released.set()

    def _number(self, path: str) -> int | None:
        """This request's number among model calls (None for anything else, like token counting)."""
        if not path.endswith(MODEL_PATHS):
            return None
        with self._lock:
            self.model_calls += 1
            return self.model_calls

    async def forward(self, request: Request) -> Response:
        number = self._number(request.url.path)
        headers = {k: v for k, v in request.headers.items() if k.lower() not in ("host", "content-length")}
        async with httpx.AsyncClient(timeout=60) as client:
            answer = await client.request(
                request.method, self.replay_url + request.url.path, content=await request.body(), headers=headers
            )
        passed = {k: v for k, v in answer.headers.items() if k.lower() in PASSED_HEADERS}
        if number != self.hold or "text/event-stream" not in answer.headers.get("content-type", ""):
            return Response(answer.content, status_code=answer.status_code, headers=passed)
        first, _, rest = answer.content.partition(b"\n\n")
        return StreamingResponse(self._held(first + b"\n\n", rest), status_code=answer.status_code, headers=passed)

    async def _held(self, first: bytes, rest: bytes):
        yield first
        self.holding.set()
        while not self._released.is_set():
            await asyncio.sleep(0.05)
        yield rest
