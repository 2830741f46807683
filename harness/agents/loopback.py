"""Serve an ASGI app on a loopback port (or a Unix socket) in a background thread, and relay a port to a socket.

The metering proxy runs inside a runner process beside the agent CLI, and the
replay server runs beside a test or a story: both need a real HTTP server on
127.0.0.1 whose port is known before anyone connects, started and stopped
from Python. The socket is bound first (port 0: the kernel picks a free one,
no race with other cells on a shared machine) and handed to uvicorn.

A runner in a sandbox has no network but its loopback, and Unix sockets the
host hands it: :class:`UnixRelay` gives an agent CLI (which speaks only
http:// URLs) a loopback port that carries each connection to one of them.
"""

from __future__ import annotations

import asyncio
import os
import socket
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import Literal

import uvicorn


class LoopbackServer:
    """A uvicorn server on 127.0.0.1 (or on ``unix_socket``, open to every user) in a daemon thread; a context
    manager."""

    def __init__(
        self,
        app,
        port: int = 0,
        start_timeout: float = 10.0,
        lifespan: Literal["auto", "on", "off"] = "off",
        unix_socket: Path | None = None,
    ) -> None:
        self.app = app
        if unix_socket is None:
            self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self._sock.bind(("127.0.0.1", port))
            self.port: int = self._sock.getsockname()[1]
        else:
            unix_socket.unlink(missing_ok=True)
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self._sock.bind(str(unix_socket))
            os.chmod(unix_socket, 0o666)  # a sandboxed runner's user (nobody) connects to it
            self.port = 0
        self.unix_socket = unix_socket
        config = uvicorn.Config(app, log_level="warning", lifespan=lifespan, timeout_graceful_shutdown=2)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True, name=f"loopback:{self.port}"
        )
        self._start_timeout = start_timeout

    @property
    def url(self) -> str:
        """Where to reach it: an http:// URL, or ``unix:PATH`` for a server on a Unix socket."""
        return f"unix:{self.unix_socket}" if self.unix_socket else f"http://127.0.0.1:{self.port}"

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


class UnixRelay:
    """A loopback port whose every connection is carried, bytes as they are, to the Unix socket ``target``.

    Runs an event loop in a daemon thread: it lives as long as the process
    (a runner) that needs it. A connection the socket refuses (its server is
    restarting) is closed at once, as a refused TCP connection would be.
    """

    def __init__(self, target: str, start_timeout: float = 10.0) -> None:
        self.target = target
        self.port = 0
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True, name=f"relay:{target}")
        self._start_timeout = start_timeout

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> UnixRelay:
        self._thread.start()
        if not self._ready.wait(self._start_timeout):
            raise RuntimeError(f"relay to {self.target} did not start")
        return self

    def _serve(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        server = await asyncio.start_server(self._carry, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        async with server:
            await server.serve_forever()

    async def _carry(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            upstream_reader, upstream_writer = await asyncio.open_unix_connection(self.target)
        except OSError:
            writer.close()
            return
        await asyncio.gather(_pipe(reader, upstream_writer), _pipe(upstream_reader, writer))
        writer.close()
        upstream_writer.close()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Copy until the reader's end, then pass the end on (a half-close); a broken side ends the copy."""
    try:
        while chunk := await reader.read(65536):
            writer.write(chunk)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
    except OSError:
        writer.close()
