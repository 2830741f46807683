"""The run's metering proxy as its runner holds it: beside the runner, or on the host across a sandbox's wall.

A local runner starts its run's proxy itself (:class:`Meter`, on a loopback
port). A runner in a sandbox has no network, and the proxy must not be in
the sandbox with the agent: it is the only way to the model and it holds
the real key. So the host starts the run's :class:`Meter` on a Unix socket
(:func:`serve_on_socket`), the sandbox is handed that one socket, and the
runner inside holds a :class:`SocketMeter`: a loopback port relayed to the
socket for the CLI, and the proxy's figures read back through it
(:data:`STATUS_PATH`). Both answer the runner the same questions: where the
CLI sends its calls, with which key, whether the budget stopped it, and what
the calls cost.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

import httpx
from pydantic import BaseModel
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route

from .client import RETRY_FOR_SECONDS, AgentApiError, RunEnded
from .issued_secrets import proxy_key
from .loopback import LoopbackServer, UnixRelay
from .metering.providers import BASE_URL_VARIABLE, KEY_VARIABLE
from .metering.proxy import CallNotAdmitted, CallReport, MeteringProxy, ProxyConfig, start_proxy
from .plain_http import plain_http_transport
from .registry import AgentCli
from .session import AgentSession

METER_URL = "http://metering-proxy"
"""The proxy's address as its clients name it; they reach it through its Unix socket."""

log = logging.getLogger("agents.meter")
CALL_LOG_PREFIX = "model call: "
"""How a completed call's line in the run log begins; the JSON after it is what the reviewer's timeline plots."""

STATUS_PATH = "/.meter/status"
"""Where a proxy served on a socket tells its runner its calls so far (the run's key only; never forwarded)."""
STATUS_EVERY_S = 1.0
POLL_TIMEOUT_S = 2.0
"""A budget read waits no longer than this (a controller restarting holds the proxy's reports); the run's last read
waits for its reports as long as the runner would wait for the controller."""


class MeterStatus(BaseModel):
    """The proxy's figures as the runner reads them."""

    calls: list[CallReport]
    refused: bool  # the budget stopped the run: every further call is refused
    simulated: bool
    budget_cents: float | None


class RunMeter(Protocol):
    """What the runner asks of its run's proxy, wherever the proxy runs."""

    url: str
    client_key: str

    def status(self) -> MeterStatus: ...

    def budget_stopped(self) -> bool: ...

    def stop(self) -> None: ...


class Meter:
    """The run's metering proxy: forwards, prices, reports each call, and trips the budget stop.

    Served on a loopback port, or on ``unix_socket`` (the host's side of a sandboxed run), where it also answers
    :data:`STATUS_PATH`.
    """

    def __init__(self, session: AgentSession, kind: AgentCli, unix_socket: Path | None = None) -> None:
        self.session = session
        if not session.token:  # a key derived from nothing would be the same for every run
            raise RuntimeError("a metered run needs its run token: its proxy key is derived from it")
        self.client_key = proxy_key(session.token)  # derived, so the harness that knows the token knows it too
        upstream = session.model_upstream or session.provider_keys.get(BASE_URL_VARIABLE[kind.provider])
        real_key = session.provider_keys.get(KEY_VARIABLE[kind.provider])
        if not session.model_upstream and not (real_key and upstream):
            needed = f"{KEY_VARIABLE[kind.provider]} and {BASE_URL_VARIABLE[kind.provider]}"
            raise RuntimeError(f"a live run needs {needed} for the real provider (no model upstream configured)")
        self.config = ProxyConfig(
            upstream=upstream,
            provider=kind.provider,
            client_key=self.client_key,
            upstream_key=real_key,  # type: ignore[arg-type]
            budget_cents=session.budget_cents,
            simulated=session.model_upstream is not None,
        )
        self.calls: list[CallReport] = []
        self._admitted: dict[str, tuple[datetime, float]] = {}  # call id -> when it was forwarded
        self.refused = threading.Event()
        if unix_socket is None:
            self.proxy, self.server = start_proxy(self.config, self._on_call, self._admit)
        else:
            self.proxy = MeteringProxy(self.config, self._on_call, self._admit)
            app = Starlette(routes=[Route(STATUS_PATH, self._status_route), Mount("/", app=self.proxy.app)])
            self.server = LoopbackServer(app, unix_socket=unix_socket).start()
        self.url = self.server.url

    def _admit(self, report: CallReport) -> None:
        """The product records the call before it is forwarded; a run that has ended gets no call through."""
        if report.call_id:
            self._admitted[report.call_id] = (datetime.now(UTC), time.perf_counter())
        try:
            self.session.client.admit_call(report.model_dump(mode="json"))
        except (RunEnded, AgentApiError) as error:
            log.info("run %s: model call refused, the product did not record it: %s", self.session.run_id, error)
            raise CallNotAdmitted(f"the product did not record it ({error})") from error

    def _on_call(self, report: CallReport) -> None:
        self.calls.append(report)
        log.info("%s%s", CALL_LOG_PREFIX, self._call_line(report))
        self.session.client.report_call(report.model_dump(mode="json"))
        if report.refused and "budget" in report.refused:
            self.refused.set()

    def _call_line(self, report: CallReport) -> str:
        """The call as the run log keeps it for the reviewer's timeline: the proxy's report, when it was forwarded
        and how long its answer took (on the runner's clock, in UTC)."""
        ended = datetime.now(UTC)
        started_at, started = self._admitted.pop(report.call_id or "", (ended, time.perf_counter()))
        latency = round(time.perf_counter() - started, 4)
        line = report.model_dump(mode="json") | {"started_at": started_at.isoformat(), "latency_s": latency}
        return json.dumps(line, sort_keys=True)

    async def _status_route(self, request: Request) -> Response:
        """The figures, once every call reported so far is on the product's record: the runner's last read comes
        before its finish, as a local runner's reports are flushed before it finishes."""
        if not self.proxy.authorised(request):
            return JSONResponse({"error": "unknown key for this metering proxy"}, status_code=401)
        await asyncio.to_thread(self.session.client.flush)
        return JSONResponse(self.status().model_dump(mode="json"))

    def status(self) -> MeterStatus:
        return MeterStatus(
            calls=list(self.calls),
            refused=self.refused.is_set(),
            simulated=self.config.simulated,
            budget_cents=self.config.budget_cents,
        )

    def budget_stopped(self) -> bool:
        return self.refused.is_set()

    def stop(self) -> None:
        self.server.stop()


class SocketMeter:
    """The runner's hold on its run's proxy when the proxy runs on the host: reached through ``socket_path``.

    The CLI gets a loopback port relayed to the socket. The budget stop is
    read from the proxy at most every :data:`STATUS_EVERY_S`; the proxy
    refuses every call past the budget itself, so the CLI is stopped at the
    model even between two reads.
    """

    def __init__(self, session: AgentSession, socket_path: str) -> None:
        if not session.token:
            raise RuntimeError("a metered run needs its run token: its proxy key is derived from it")
        self.client_key = proxy_key(session.token)
        self.relay = UnixRelay(socket_path).start()
        self.url = self.relay.url
        self._http = httpx.Client(
            transport=plain_http_transport(METER_URL, uds=socket_path, retries=3),
            base_url=METER_URL,
            headers={"x-api-key": self.client_key},
        )
        self._last: MeterStatus | None = None
        self._read_at = 0.0

    def status(self, timeout: float = RETRY_FOR_SECONDS) -> MeterStatus:
        response = self._http.get(STATUS_PATH, timeout=timeout)
        response.raise_for_status()
        self._last, self._read_at = MeterStatus.model_validate(response.json()), time.monotonic()
        return self._last

    def budget_stopped(self) -> bool:
        if self._last is None or time.monotonic() - self._read_at >= STATUS_EVERY_S:
            try:
                self.status(POLL_TIMEOUT_S)
            except httpx.HTTPError as error:
                log.warning("the metering proxy's figures could not be read: %s", error)
                self._read_at = time.monotonic()
        return bool(self._last and self._last.refused)

    def stop(self) -> None:
        """The proxy itself is the host's to end (with the run); the runner only lets go of it."""
        self._http.close()


def serve_on_socket(session: AgentSession, kind: AgentCli, unix_socket: Path, ended: threading.Event) -> None:
    """The host's side of a sandboxed run: its metering proxy on ``unix_socket`` until ``ended`` is set."""
    meter = Meter(session, kind, unix_socket=unix_socket)
    log.info("run %s: metering proxy on %s (%s)", session.run_id, unix_socket, kind.provider)
    try:
        ended.wait()
    finally:
        meter.stop()
