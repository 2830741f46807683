"""The agent API's HTTP as a runner speaks it: JSON requests and one multipart upload, over keep-alive connections.

A runner is a fresh interpreter for every run, and the agent API it calls is
plain ``http://`` on this machine: a loopback port, or the controller's Unix
socket inside a sandbox. Its requests go over :mod:`oracle.wire` (HTTP/1.1 on
the standard library's sockets) rather than httpx, whose import (with TLS,
the email parser and urllib.request) was most of a runner's start.

:class:`ApiWire` only carries requests: every failure to get an HTTP answer
is :class:`Unreachable`, any answer (4xx and 5xx included) is an
:class:`Answer`; retrying and reading statuses are the caller's business
(:class:`~harness.agents.client.AgentClient`).
"""

from __future__ import annotations

import json
import uuid
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from oracle.wire import BadResponse, Pool, open_socket

IDLE_CONNECTIONS = 2
"""Connections kept open: a runner's agent and its outbox's sender each hold one."""


class Unreachable(Exception):
    """A request that got no HTTP answer: no connection, a timeout, a connection cut off. Retrying may help."""


class Body(NamedTuple):
    """A request's body and its Content-Type."""

    content_type: str
    content: bytes


class Answer(NamedTuple):
    """One response read whole; ``path`` is the request's target (the API's prefix included)."""

    method: str
    path: str
    status_code: int
    content: bytes

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")

    def json(self) -> Any:
        return json.loads(self.content)


def json_body(payload: Any) -> Body:
    return Body("application/json", json.dumps(payload).encode())


def form_body(fields: dict[str, str], file_field: str, filename: str, data: bytes, content_type: str) -> Body:
    """A multipart/form-data body: text ``fields``, then one file part."""
    boundary = uuid.uuid4().hex
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
        for name, value in fields.items()
    ]
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="{file_field}"; filename="{filename}"\r\n'
        f"Content-Type: {content_type}\r\n\r\n".encode()
        + data
        + b"\r\n"
    )
    parts.append(f"--{boundary}--\r\n".encode())
    return Body(f"multipart/form-data; boundary={boundary}", b"".join(parts))


class ApiWire:
    """Requests to ``base_url`` (``http://host:port/prefix``), or through ``socket_path`` when given; thread-safe."""

    def __init__(self, base_url: str, headers: dict[str, str], timeout: float, socket_path: str | None = None) -> None:
        address = urlsplit(base_url)
        if address.scheme != "http" or not address.hostname:
            raise ValueError(f"the agent API is plain http:// on this machine, not {base_url!r}")
        self._prefix = address.path.rstrip("/")
        self._headers = headers
        self._timeout = timeout
        self._host, self._port = address.hostname, address.port or 80
        self._pool = Pool(
            lambda timeout: open_socket(self._host, self._port, socket_path, timeout), address.netloc, IDLE_CONNECTIONS
        )

    def request(self, method: str, path: str, body: Body | None = None) -> Answer:
        """Send one request and read its answer whole, or raise :class:`Unreachable`."""
        target = self._prefix + path
        headers = dict(self._headers)
        if body is not None:
            headers["Content-Type"] = body.content_type
        try:
            with self._pool.exchange(
                method, target, headers, None if body is None else body.content, self._timeout
            ) as response:
                return Answer(method, target, response.status, response.read())
        except (OSError, BadResponse) as error:  # OSError: refused, reset, timed out, no socket file
            raise Unreachable(f"{type(error).__name__}: {error}") from None

    def close(self) -> None:
        self._pool.close()
