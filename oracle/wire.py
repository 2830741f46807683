"""Just enough HTTP/1.1 to speak over sockets the caller opens: one request, one response at a time on a connection.

Why not http.client: importing it loads the email parser it reads headers
with and the ssl module (OpenSSL) whether or not TLS is used, a large part
of a fresh interpreter's start (see `python -X importtime` and
docs/measurements.md); httpx costs more still. Its callers need far less: a
request with a body of bytes or a stream (sent chunked), and a response
whose body is framed by Content-Length, by chunks, or by the end of the
connection, read whole, by size or line by line as it arrives; keep-alive
connections shared by threads (`Pool`, one request at a time through
`Pool.exchange`).

Knows no API: `oracle.engine` speaks to a Docker engine with it, and a
testbed runner to its controller's agent API (`harness.agents.api_wire`)."""

from __future__ import annotations

import io
import select
import socket
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import IO

MAX_LINE = 65536
MAX_HEADERS = 100
BLOCK = 65536
SMALL_BODY = 65536
"""A body up to this size is sent in the same write as the request head."""
NO_BODY = (204, 304)


class BadResponse(Exception):
    """What came back is not an HTTP/1.1 response, or it ended before its body did."""


class Response:
    """One response: status, reason and headers (names in lower case) read; the body read on demand.

    `complete` turns true once the body was read to its end; only then may
    the connection carry another request (if `keep_alive`).
    """

    def __init__(self, reader: io.BufferedReader, method: str) -> None:
        self._reader = reader
        line = reader.readline(MAX_LINE)
        if not line:
            raise BadResponse("the server closed the connection without answering")
        parts = line.split(None, 2)
        if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or not parts[1].isdigit():
            raise BadResponse(f"not an HTTP/1.1 status line: {line[:80]!r}")
        self.status = int(parts[1])
        self.reason = parts[2].strip().decode("latin-1") if len(parts) == 3 else ""
        self.headers = _headers(reader)
        framing = self.headers.get("transfer-encoding", "").lower()
        length = self.headers.get("content-length")
        self._chunked = "chunked" in framing
        self._chunk_left = 0
        self._left: int | None = None
        if self.status in NO_BODY or 100 <= self.status < 200 or method == "HEAD":
            self._left = 0
        elif not self._chunked and length is not None:
            if not length.strip().isdigit():
                raise BadResponse(f"a Content-Length that is not a number: {length!r}")
            self._left = int(length)
        framed = self._chunked or self._left is not None
        self.keep_alive = (
            framed and parts[0] != b"HTTP/1.0" and "close" not in self.headers.get("connection", "").lower()
        )
        self.complete = self._left == 0

    def read(self, size: int = -1) -> bytes:
        """Up to `size` bytes of the body (all that is left when negative); fewer only at its end, b"" after it."""
        if size < 0:
            parts = []
            while part := self._read_some(BLOCK):
                parts.append(part)
            return b"".join(parts)
        parts = []
        while size > 0 and (part := self._read_some(size)):
            parts.append(part)
            size -= len(part)
        return b"".join(parts)

    def __iter__(self) -> Iterator[bytes]:
        """The body's lines (without their b"\\n") as they arrive, e.g. a pull's progress."""
        pending = b""
        while part := self._read_some(BLOCK):
            *lines, pending = (pending + part).split(b"\n")
            yield from lines
        if pending:
            yield pending

    def _read_some(self, size: int) -> bytes:
        """What the body has next, up to `size` bytes (at least one until its end)."""
        if self.complete or size <= 0:
            return b""
        if self._chunked:
            return self._read_chunk(size)
        if self._left is None:  # the body lasts until the server closes the connection
            data = self._reader.read1(size)
            self.complete = not data
            return bytes(data)
        data = self._reader.read1(min(size, self._left))
        if not data:
            raise BadResponse(f"the body ended {self._left} bytes early")
        self._left -= len(data)
        self.complete = self._left == 0
        return bytes(data)

    def _read_chunk(self, size: int) -> bytes:
        if self._chunk_left == 0:
            line = self._reader.readline(MAX_LINE)
            try:
                self._chunk_left = int(line.split(b";", 1)[0].strip(), 16)
            except ValueError:
                raise BadResponse(f"not a chunk size: {line[:40]!r}") from None
            if self._chunk_left == 0:
                _headers(self._reader)  # the trailer, if any, up to the empty line
                self.complete = True
                return b""
        data = self._reader.read1(min(size, self._chunk_left))
        if not data:
            raise BadResponse("the body ended inside a chunk")
        self._chunk_left -= len(data)
        if self._chunk_left == 0 and self._reader.readline(MAX_LINE) not in (b"\r\n", b"\n"):
            raise BadResponse("a chunk not followed by its line end")
        return bytes(data)


def _headers(reader: io.BufferedReader) -> dict[str, str]:
    """Header lines up to the empty one, names in lower case (a repeated name's values joined with ", ")."""
    found: dict[str, str] = {}
    for _ in range(MAX_HEADERS):
        line = reader.readline(MAX_LINE)
        if line in (b"\r\n", b"\n"):
            return found
        if not line.endswith(b"\n"):
            raise BadResponse("the server closed the connection inside the headers")
        name, colon, value = line.decode("latin-1").partition(":")
        if not colon:
            raise BadResponse(f"not a header: {line[:80]!r}")
        key = name.strip().lower()
        found[key] = f"{found[key]}, {value.strip()}" if key in found else value.strip()
    raise BadResponse(f"more than {MAX_HEADERS} headers")


def _chunks(stream: IO[bytes]) -> Iterator[bytes]:
    """A stream's content as HTTP chunks, ending with the empty one."""
    while block := stream.read(BLOCK):
        yield b"%X\r\n%s\r\n" % (len(block), block)
    yield b"0\r\n\r\n"


class Connection:
    """One open connection: send a request, read its response to the end, send the next one."""

    def __init__(self, sock: socket.socket, host: str) -> None:
        """``host``: what the requests' Host header says."""
        self.sock = sock
        self.host = host
        self._reader: io.BufferedReader = sock.makefile("rb", buffering=BLOCK)  # type: ignore[assignment]

    def request(
        self, method: str, target: str, headers: Mapping[str, str], body: bytes | IO[bytes] | None = None
    ) -> Response:
        """Send one request (a stream body goes chunked, as it is read) and read its response's head."""
        head = [f"{method} {target} HTTP/1.1", f"Host: {self.host}", *(f"{k}: {v}" for k, v in headers.items())]
        if isinstance(body, bytes):
            head.append(f"Content-Length: {len(body)}")
        elif body is not None:
            head.append("Transfer-Encoding: chunked")
        elif method != "GET":
            head.append("Content-Length: 0")
        encoded = "\r\n".join([*head, "", ""]).encode("latin-1")
        if isinstance(body, bytes) and len(body) <= SMALL_BODY:
            self.sock.sendall(encoded + body)
        else:
            self.sock.sendall(encoded)
            if isinstance(body, bytes):
                self.sock.sendall(body)
            elif body is not None:
                for chunk in _chunks(body):
                    self.sock.sendall(chunk)
        return Response(self._reader, method)

    def dropped(self) -> bool:
        """Whether the server closed this idle connection (an idle socket that reads as ready has ended)."""
        try:
            return bool(select.select([self.sock], [], [], 0)[0])
        except (OSError, ValueError):
            return True

    def close(self) -> None:
        self._reader.close()
        self.sock.close()


def open_socket(host: str, port: int | None, socket_path: str | None, timeout: float) -> socket.socket:
    """A socket connected to ``socket_path`` (a Unix socket) when given, else to ``host``:``port`` over TCP."""
    if socket_path is not None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.settimeout(timeout)
            sock.connect(socket_path)
        except BaseException:
            sock.close()
            raise
        return sock
    sock = socket.create_connection((host, port), timeout=timeout)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # a request's head and a large body go as two writes
    return sock


class Pool:
    """Keep-alive connections to one server, shared by threads: each request takes a connection of its own.

    ``connect(timeout)`` opens a new socket (a Unix socket, TCP, TLS:
    the caller's choice). A connection goes back to the pool only once its
    response was read to the end and the server keeps it open; any other is
    closed, and so is one the server closed while it was idle.
    """

    def __init__(self, connect: Callable[[float], socket.socket], host: str, idle_at_most: int) -> None:
        self._connect = connect
        self._host = host
        self._idle_at_most = idle_at_most
        self._idle: list[Connection] = []
        self._lock = threading.Lock()

    def _take(self, timeout: float) -> Connection:
        """An idle connection the server still holds open, else a new one; its socket's timeout set to ``timeout``."""
        with self._lock:
            connection = None
            while self._idle and connection is None:
                connection = self._idle.pop()
                if connection.dropped():
                    connection.close()
                    connection = None
        if connection is None:
            connection = Connection(self._connect(timeout), self._host)
        connection.sock.settimeout(timeout)
        return connection

    @contextmanager
    def exchange(
        self, method: str, target: str, headers: Mapping[str, str], body: bytes | IO[bytes] | None, timeout: float
    ) -> Iterator[Response]:
        """One request on a connection of the pool, its response for the caller to read; the connection goes back
        (or is closed) when the block ends, however it ends."""
        connection = self._take(timeout)
        response: Response | None = None
        try:
            response = connection.request(method, target, headers, body)
            yield response
        finally:
            self._give_back(connection, response)

    def _give_back(self, connection: Connection, response: Response | None) -> None:
        """Keep the connection for the next request if its response (None: none came) left it reusable; else close."""
        if response is not None and response.complete and response.keep_alive:
            with self._lock:
                if len(self._idle) < self._idle_at_most:
                    self._idle.append(connection)
                    return
        connection.close()

    def close(self) -> None:
        """Close the idle connections (requests after this open new ones)."""
        with self._lock:
            idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()
