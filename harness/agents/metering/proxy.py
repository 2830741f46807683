"""The metering proxy: the only way an agent CLI reaches its model.

It runs on loopback inside the runner. The CLI is pointed at it with a
throwaway key; the proxy checks that key, swaps in the real one (or none, for
the replay server), forwards the request upstream, reads the usage of the
response as it streams past, prices it, and reports the call. It also holds
the budget: a call whose input alone would pass it is refused, a call that
passes it is the last one, and from then on every call is refused with a
non-retryable error, before anything reaches upstream.

With an ``admit`` callback (the runner's: the product records the call), a
call is reported twice under one ``call_id``: once admitted, with its input
estimate as the charge, before a byte goes upstream, and once completed, with
what the response really cost, when it ends or is cut. The admission is
acknowledged before the call is forwarded, so a call the model answered is
on record even if the runner dies mid-stream (a Stop kills it); a refused
admission (the run has ended) refuses the call, so nothing gets past a Stop.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
import uuid
from collections.abc import AsyncIterator, Callable

import httpx
from pydantic import BaseModel, ConfigDict, Field, field_validator
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from ..loopback import LoopbackServer
from .prices import UnpricedModel, price_table
from .providers import Provider
from .usage import Protocol, Usage, UsageReader, protocol_of

# Headers that describe one hop, or the key: never forwarded in either direction.
HOP_HEADERS = {
    "host",
    "connection",
    "keep-alive",
    "transfer-encoding",
    "content-length",
    "content-encoding",
    "accept-encoding",
    "authorization",
    "x-api-key",
    "proxy-authorization",
    "te",
    "trailer",
    "upgrade",
}
# 402 with a billing error is final for all three CLIs (measured: each retries only
# 408/409/429/5xx and network errors, and Claude Code answers a 400 by retrying
# with fewer beta features and tools, so a 400 would be refused several times).
REFUSAL_STATUS = 402
# What the CLI gets when the upstream could not be reached or broke off before answering (retryable).
UPSTREAM_FAILED = 502


class ProxyConfig(BaseModel):
    """What one runner's proxy needs; the real key lives here and nowhere the agent can read."""

    model_config = ConfigDict(allow_inf_nan=False)

    # The base URL the request path is appended to: the replay server, or the provider's API root.
    upstream: str
    provider: Provider  # whose prices apply and how the real key is sent
    client_key: str  # the throwaway key the CLI was given
    upstream_key: str | None = None  # the real key; None for the replay server
    budget_cents: float | None = Field(default=None, ge=0)
    simulated: bool = False  # replay: costs are priced like the real model but never count as real spend
    timeout_seconds: float = Field(default=600.0, gt=0)

    @field_validator("upstream")
    @classmethod
    def _an_http_url(cls, upstream: str) -> str:
        if not re.match(r"https?://[^/\s]+", upstream):
            raise ValueError(f"{upstream!r} is not an http:// or https:// URL")
        return upstream


class CallReport(BaseModel):
    """One model call as the proxy saw it: what it cost and where the budget stands."""

    protocol: Protocol
    provider: Provider
    model: str
    status: int  # the upstream's HTTP status; 0 while the call is in flight (admitted, not answered yet)
    usage: Usage | None
    cost_cents: float
    simulated: bool
    price_table: str
    refused: str | None = None  # why the proxy refused the call (nothing reached upstream)
    usage_estimated: bool = False  # an answered call without usage is charged its input estimate, never zero
    spent_cents: float
    budget_cents: float | None
    call_id: str | None = None  # a forwarded call: its admission and its completion carry the same id
    in_flight: bool = False  # the admission: input estimate as usage and cost, reported before forwarding


class CallNotAdmitted(Exception):
    """The product refused to record a call (its run has ended): the call is refused, nothing is forwarded."""


class Budget:
    """Spend so far against an optional limit; once exceeded, it stays exceeded."""

    def __init__(self, limit_cents: float | None) -> None:
        self.limit_cents = limit_cents
        self.spent_cents = 0.0
        self.exceeded = False
        self._lock = threading.Lock()

    def admit(self, estimate_cents: float) -> bool:
        with self._lock:
            if self.limit_cents is not None and self.spent_cents + estimate_cents > self.limit_cents:
                self.exceeded = True
            return not self.exceeded

    def charge(self, cents: float) -> float:
        with self._lock:
            self.spent_cents += cents
            if self.limit_cents is not None and self.spent_cents > self.limit_cents:
                self.exceeded = True
            return self.spent_cents


def refusal(protocol: Protocol, message: str) -> JSONResponse:
    """An error each CLI shows and stops on, in its protocol's shape (a billing error: never retried)."""
    if protocol == "messages":
        body = {"type": "error", "error": {"type": "billing_error", "message": message}}
    else:
        body = {"error": {"message": message, "type": "insufficient_quota", "code": "budget_exceeded", "param": None}}
    return JSONResponse(body, status_code=REFUSAL_STATUS)


class MeteringProxy:
    """The ASGI app (``app``) plus its budget; ``on_call`` receives every call's report.

    ``admit``, when given, receives each call's admission before it is
    forwarded and must return only once the call is on record, or raise
    :class:`CallNotAdmitted`. It runs in a worker thread, so a slow or
    retried acknowledgement holds back that call only, never the others.
    Without it (the standalone proxy) a call is reported once, when it ends.
    """

    def __init__(
        self,
        config: ProxyConfig,
        on_call: Callable[[CallReport], None],
        admit: Callable[[CallReport], None] | None = None,
    ) -> None:
        self.config = config
        self.on_call = on_call
        self.admit = admit
        self.budget = Budget(config.budget_cents)
        self.prices = price_table()
        self._client: httpx.AsyncClient | None = None
        self.app = Starlette(
            routes=[Route("/{path:path}", self.handle, methods=["GET", "POST", "PUT", "DELETE", "HEAD"])]
        )

    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(timeout=httpx.Timeout(self.config.timeout_seconds, connect=10.0))
        return self._client

    def authorised(self, request: Request) -> bool:
        """The request bears the run's throwaway key."""
        key = self.config.client_key
        bearer = request.headers.get("authorization", "")
        return request.headers.get("x-api-key") == key or bearer == f"Bearer {key}"

    def _upstream_headers(self, request: Request) -> dict[str, str]:
        headers = {name: value for name, value in request.headers.items() if name.lower() not in HOP_HEADERS}
        headers["accept-encoding"] = "identity"  # usage is read from the bytes as they pass
        if self.config.upstream_key:
            if self.config.provider == "anthropic":
                headers["x-api-key"] = self.config.upstream_key
            else:
                headers["authorization"] = f"Bearer {self.config.upstream_key}"
        return headers

    def _report(
        self,
        protocol: Protocol,
        model: str,
        status: int,
        usage: Usage | None,
        refused: str | None = None,
        estimate: Usage | None = None,
        call_id: str | None = None,
    ) -> None:
        estimated = usage is None and estimate is not None and 200 <= status < 300
        if estimated:
            usage = estimate
        cents = self.prices.cents(self.config.provider, model, usage) if usage else 0.0
        spent = self.budget.charge(cents) if cents else self.budget.spent_cents
        self.on_call(
            CallReport(
                call_id=call_id,
                protocol=protocol,
                provider=self.config.provider,
                model=model,
                status=status,
                usage=usage,
                cost_cents=cents,
                simulated=self.config.simulated,
                price_table=self.prices.version,
                refused=refused,
                spent_cents=spent,
                budget_cents=self.config.budget_cents,
                usage_estimated=estimated,
            )
        )

    async def handle(self, request: Request) -> Response:
        if not self.authorised(request):
            return JSONResponse(
                {"error": {"message": "unknown key for this metering proxy", "type": "authentication_error"}},
                status_code=401,
            )
        protocol = protocol_of(request.url.path)
        body = await request.body()
        if protocol is None:  # token counting and the like: forwarded, never priced
            return await self._forward_plain(request, body)
        try:
            payload = json.loads(body)
            model = str(payload.get("model", ""))
            estimate = Usage(input_tokens=len(body) // 4)
            estimate_cents = self.prices.cents(self.config.provider, model, estimate)
        except (ValueError, AttributeError, UnpricedModel) as error:
            self._report(protocol, "", REFUSAL_STATUS, None, refused=f"cannot price this call: {error}")
            return refusal(protocol, f"metering proxy refused the call: cannot price it ({error})")
        if not self.budget.admit(estimate_cents):
            message = f"budget exceeded: {self.budget.spent_cents:.2f} of {self.config.budget_cents} cents spent; no further model calls"
            self._report(protocol, model, REFUSAL_STATUS, None, refused=message)
            return refusal(protocol, message)
        if (
            protocol == "chat"
            and payload.get("stream")
            and not (payload.get("stream_options") or {}).get("include_usage")
        ):
            # Without this a streamed Chat Completion carries no usage at all.
            payload["stream_options"] = {**(payload.get("stream_options") or {}), "include_usage": True}
            body = json.dumps(payload).encode()
        call_id = uuid.uuid4().hex
        if self.admit is not None:
            admission = self._admission(protocol, model, estimate, estimate_cents, call_id)
            try:
                await asyncio.to_thread(self.admit, admission)
            except CallNotAdmitted as refused:
                return refusal(protocol, f"metering proxy refused the call: {refused}")
        return await self._forward_metered(request, body, protocol, model, estimate, call_id)

    def _admission(self, protocol: Protocol, model: str, estimate: Usage, cents: float, call_id: str) -> CallReport:
        """The report of a call about to be forwarded: its input estimate is its charge until it completes."""
        return CallReport(
            call_id=call_id,
            in_flight=True,
            protocol=protocol,
            provider=self.config.provider,
            model=model,
            status=0,
            usage=estimate,
            usage_estimated=True,
            cost_cents=cents,
            simulated=self.config.simulated,
            price_table=self.prices.version,
            spent_cents=self.budget.spent_cents,
            budget_cents=self.config.budget_cents,
        )

    def _url(self, request: Request) -> str:
        query = f"?{request.url.query}" if request.url.query else ""
        return self.config.upstream.rstrip("/") + request.url.path + query

    async def _forward_plain(self, request: Request, body: bytes) -> Response:
        upstream = await self.client().request(
            request.method, self._url(request), content=body, headers=self._upstream_headers(request)
        )
        return Response(upstream.content, status_code=upstream.status_code, headers=_response_headers(upstream))

    async def _forward_metered(
        self, request: Request, body: bytes, protocol: Protocol, model: str, estimate: Usage, call_id: str
    ) -> Response:
        outgoing = self.client().build_request(
            request.method, self._url(request), content=body, headers=self._upstream_headers(request)
        )
        try:
            upstream = await self.client().send(outgoing, stream=True)
        except httpx.TransportError as error:  # no answer: an admitted call is completed as failed, charged nothing
            if self.admit is not None:
                self._report(protocol, model, UPSTREAM_FAILED, None, call_id=call_id)
            return JSONResponse(
                {"error": {"message": f"metering proxy: upstream failed ({error})", "type": "upstream_error"}},
                status_code=UPSTREAM_FAILED,
            )
        reader = UsageReader(protocol)
        if "text/event-stream" not in upstream.headers.get("content-type", ""):
            raw = await upstream.aread()
            await upstream.aclose()
            reader.body(raw)
            self._report(protocol, model, upstream.status_code, reader.usage, estimate=estimate, call_id=call_id)
            return Response(raw, status_code=upstream.status_code, headers=_response_headers(upstream))

        reported = False

        def report_once() -> None:
            nonlocal reported
            if not reported:
                reported = True
                self._report(protocol, model, upstream.status_code, reader.usage, estimate=estimate, call_id=call_id)

        async def relay() -> AsyncIterator[bytes]:
            try:
                async for chunk in upstream.aiter_raw():
                    reader.feed(chunk)
                    if reader.complete:  # charged before the CLI sees the end and sends its next call
                        report_once()
                    yield chunk
            finally:  # a stream cut short is still charged for what was produced
                reader.finish()
                report_once()
                await upstream.aclose()

        return StreamingResponse(relay(), status_code=upstream.status_code, headers=_response_headers(upstream))


def _response_headers(upstream: httpx.Response) -> dict[str, str]:
    return {name: value for name, value in upstream.headers.items() if name.lower() not in HOP_HEADERS}


def start_proxy(
    config: ProxyConfig,
    on_call: Callable[[CallReport], None],
    admit: Callable[[CallReport], None] | None = None,
) -> tuple[MeteringProxy, LoopbackServer]:
    """A running proxy on a free loopback port; stop the server when the run ends."""
    proxy = MeteringProxy(config, on_call, admit)
    return proxy, LoopbackServer(proxy.app).start()
