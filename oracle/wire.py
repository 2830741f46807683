"""Just enough HTTP/1.1 to speak to a Docker engine over a socket the caller opened: one request, one response at a time.

Why not http.client: importing it loads the email parser it reads headers
with and the ssl module (OpenSSL) whether or not TLS is used, 20 to 60 ms of
every `python -m oracle grade` before its container can be asked for (see
`python -X importtime`). The engine's API needs far less: a request with a
body of bytes or a stream (sent chunked), and a response whose body is
framed by Content-Length, by chunks, or by the end of the connection, read
whole, by size or line by line as it arrives.

Knows nothing of Docker; `oracle.engine` is the one module that uses it.
"""

from __future__ import annotations

import io
import select
import socket
from collections.abc import Iterator, Mapping
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
            raise BadResponse("the engine closed the connection without answering")
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
        if self._left is None:  # the body lasts until the engine closes the connection
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
            raise BadResponse("the engine closed the connection inside the headers")
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

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self._reader: io.BufferedReader = sock.makefile("rb", buffering=BLOCK)  # type: ignore[assignment]

    def request(
        self, method: str, target: str, headers: Mapping[str, str], body: bytes | IO[bytes] | None = None
    ) -> Response:
        """Send one request (a stream body goes chunked, as it is read) and read its response's head."""
        head = [f"{method} {target} HTTP/1.1", "Host: docker", *(f"{k}: {v}" for k, v in headers.items())]
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
        """Whether the engine closed this idle connection (an idle socket that reads as ready has ended)."""
        try:
            return bool(select.select([self.sock], [], [], 0)[0])
        except (OSError, ValueError):
            return True

    def close(self) -> None:
        self._reader.close()
        self.sock.close()
