"""The recording tap: stands between a cell's agents and their model, forwards every call, and keeps each exchange.

It sees what the metering proxies forward, so it records each CLI's model
traffic on every product, whoever runs the CLI. Headers go upstream as they
came (the provider needs its key) and are never recorded; bodies are kept as
they passed, and redacted when the cassette is written (:mod:`.keep`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import AsyncIterator

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from harness.agents.metering.proxy import HOP_HEADERS
from harness.cassettes.model import Exchange, StreamedEvent

EVENT_END = "\n\n"
KEY_HEADERS = frozenset({"authorization", "x-api-key"})
"""Forwarded, so a provider gets its key; never recorded (no header is)."""


class RecordingTap:
    """The ASGI app (``app``); ``exchanges()`` is what it recorded so far, in arrival order."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")
        self._exchanges: list[Exchange] = []
        self._arrived = 0
        self._lock = threading.Lock()
        self.app = Starlette(routes=[Route("/{path:path}", self.handle, methods=["GET", "POST", "PUT", "DELETE"])])

    def exchanges(self) -> list[Exchange]:
        with self._lock:
            return sorted(self._exchanges, key=lambda e: e.index)

    def _keep(self, exchange: Exchange) -> None:
        with self._lock:
            self._exchanges.append(exchange)

    async def handle(self, request: Request) -> Response:
        with self._lock:
            index, self._arrived = self._arrived, self._arrived + 1
        arrived = time.monotonic()
        body = await request.body()
        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP_HEADERS - KEY_HEADERS}
        headers["accept-encoding"] = "identity"
        query = f"?{request.url.query}" if request.url.query else ""
        client = httpx.AsyncClient(timeout=httpx.Timeout(600.0, connect=10.0))
        outgoing = client.build_request(
            request.method, self.upstream + request.url.path + query, content=body, headers=headers
        )
        upstream = await client.send(outgoing, stream=True)
        content_type = upstream.headers.get("content-type", "")
        answer_headers = {k: v for k, v in upstream.headers.items() if k.lower() not in HOP_HEADERS}

        def exchange(**answer: object) -> Exchange:
            return Exchange(
                index=index,
                method=request.method,
                path=request.url.path,
                request=body.decode("utf-8", "replace"),
                status=upstream.status_code,
                content_type=content_type,
                **answer,  # type: ignore[arg-type]
            )

        if "text/event-stream" not in content_type:
            raw = await upstream.aread()
            await upstream.aclose()
            await client.aclose()
            self._keep(exchange(body=raw.decode("utf-8", "replace")))
            return Response(raw, status_code=upstream.status_code, headers=answer_headers)

        async def relay() -> AsyncIterator[bytes]:
            events: list[StreamedEvent] = []
            pending = ""
            try:
                async for chunk in upstream.aiter_raw():
                    pending += chunk.decode("utf-8", "replace")
                    *complete, pending = pending.split(EVENT_END)
                    at = round(time.monotonic() - arrived, 3)
                    events += [StreamedEvent(at_s=at, data=e) for e in complete if e.strip()]
                    yield chunk
            finally:
                if pending.strip():
                    events.append(StreamedEvent(at_s=round(time.monotonic() - arrived, 3), data=pending))
                await upstream.aclose()
                await client.aclose()
                self._keep(exchange(events=tuple(events)))

        return StreamingResponse(relay(), status_code=upstream.status_code, headers=answer_headers)
