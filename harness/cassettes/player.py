"""The cassette player: answers a cell's agents from a cassette, with nothing reaching a model.

Each request is matched to an unplayed recorded one on the same path whose
request, normalised, is the same (so identical requests play in recorded
order); its answer is played back with the recorded pauses and fitted with
this run's ids and paths. A request the cassette does not hold is a
divergence: it is answered with an error the CLI stops on, and kept with a
diff against the nearest recorded request, because the product has changed
what the agent sees, which is exactly what a replay exists to show.
"""

from __future__ import annotations

import asyncio
import difflib
import threading
import time
from collections.abc import AsyncIterator

from pydantic import BaseModel
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from harness.agents.metering.proxy import refusal
from harness.agents.metering.usage import protocol_of
from harness.cassettes.model import Cassette, Exchange
from harness.cassettes.normalise import Normaliser

DIFF_LINES = 120
NEAREST_TRIED = 8
"""Unplayed recorded requests on the same path compared with a divergent one, to find the nearest."""


class Divergence(BaseModel):
    call: int  # 1-based, in the order the requests arrived
    path: str
    nearest: int | None  # the recorded exchange it is compared with
    diff: str

    def headline(self) -> str:
        return f"diverged at call {self.call} ({self.path}): the cassette holds no such request"


class CassettePlayer:
    """The ASGI app (``app``), what it has played (``answered``) and where it diverged (``divergences``)."""

    def __init__(self, cassette: Cassette, normaliser: Normaliser) -> None:
        self.normaliser = normaliser
        self._unplayed: list[tuple[Exchange, str]] = [(e, normaliser.key(e.request)) for e in cassette.exchanges]
        self._arrived = 0
        self.answered = 0
        self.divergences: list[Divergence] = []
        self._lock = threading.Lock()
        self.app = Starlette(routes=[Route("/{path:path}", self.handle, methods=["GET", "POST", "PUT", "DELETE"])])

    def unplayed(self) -> int:
        return len(self._unplayed)

    def _take(self, path: str, key: str) -> tuple[int, Exchange | None]:
        with self._lock:
            self._arrived += 1
            for position, (exchange, recorded_key) in enumerate(self._unplayed):
                if exchange.path == path and recorded_key == key:
                    del self._unplayed[position]
                    self.answered += 1
                    return self._arrived, exchange
            return self._arrived, None

    def _diverged(self, call: int, path: str, key: str) -> Divergence:
        with self._lock:
            same_path = [(e, k) for e, k in self._unplayed if e.path == path][:NEAREST_TRIED]
        nearest = max(
            same_path, key=lambda pair: difflib.SequenceMatcher(None, pair[1], key).quick_ratio(), default=None
        )
        recorded = nearest[1].splitlines() if nearest else []
        lines = list(difflib.unified_diff(recorded, key.splitlines(), "recorded", "this run", lineterm="", n=2))
        if len(lines) > DIFF_LINES:
            lines = [*lines[:DIFF_LINES], f"... {len(lines) - DIFF_LINES} more lines"]
        divergence = Divergence(
            call=call, path=path, nearest=nearest[0].index if nearest else None, diff="\n".join(lines)
        )
        with self._lock:
            self.divergences.append(divergence)
        return divergence

    async def handle(self, request: Request) -> Response:
        body = (await request.body()).decode("utf-8", "replace")
        key = self.normaliser.key(body)
        call, exchange = self._take(request.url.path, key)
        if exchange is None:
            divergence = self._diverged(call, request.url.path, key)
            protocol = protocol_of(request.url.path)
            if protocol is None:
                return JSONResponse({"error": {"message": divergence.headline()}}, status_code=404)
            return refusal(protocol, f"cassette replay: {divergence.headline()}")
        fit = lambda text: self.normaliser.fit(text, exchange.request, body)  # noqa: E731
        if not exchange.events:
            return Response(fit(exchange.body or ""), status_code=exchange.status, media_type=exchange.content_type)

        async def play() -> AsyncIterator[bytes]:
            started = time.monotonic()
            for event in exchange.events:
                if (wait := event.at_s - (time.monotonic() - started)) > 0:
                    await asyncio.sleep(wait)
                yield (fit(event.data) + "\n\n").encode()

        return StreamingResponse(play(), status_code=exchange.status, media_type=exchange.content_type)
