"""Serve an ASGI app on a loopback port in a background thread.

The metering proxy runs inside a runner process beside the agent CLI, and the
replay server runs beside a test or a story: both need a real HTTP server on
127.0.0.1 whose port is known before anyone connects, started and stopped
from Python. The socket is bound first (port 0: the kernel picks a free one,
no race with other cells on a shared machine) and handed to uvicorn.
"""

from __future__ import annotations

import socket
import threading
import time
from types import TracebackType
from typing import Literal

import uvicorn


class LoopbackServer:
    """A uvicorn server on 127.0.0.1 in a daemon thread; a context manager."""

    def __init__(
        self, app, port: int = 0, start_timeout: float = 10.0, lifespan: Literal["auto", "on", "off"] = "off"
    ) -> None:
        self.app = app
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", port))
        self.port: int = self._sock.getsockname()[1]
        config = uvicorn.Config(app, log_level="warning", lifespan=lifespan, timeout_graceful_shutdown=2)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True, name=f"loopback:{self.port}"
        )
        self._start_timeout = start_timeout

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> LoopbackServer:
        self._thread.start()
        deadline = time.monotonic() + self._start_timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"loopback server on port {self.port} did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=5)
        self._sock.close()

    def __enter__(self) -> LoopbackServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
