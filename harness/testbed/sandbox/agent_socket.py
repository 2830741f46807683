"""The controller's agent API on a Unix socket: the only thing a sandboxed runner can reach.

The controller binds its usual TCP port and, in the container environment,
this socket too, on the same server. A request that came through the socket
(uvicorn gives it a server address without a port) may reach only the agent API and the
MCP tool server; anything else (the public API, the web UI) is refused 403,
so a runner cannot act as a person would.
"""

from __future__ import annotations

import hashlib
import os
import socket
from pathlib import Path

from starlette.types import ASGIApp, Receive, Scope, Send

SOCKET_NAME = "agent.sock"
AGENT_PREFIXES = ("/api/agent/", "/mcp")
MOUNT_POINT = "/run/testbed"
"""Where the socket's folder appears inside a runner's container."""


def data_digest(data_dir: Path) -> str:
    """A data folder's name for the engine and for the short folders of its sockets (a path says more than they
    need, and a socket's path has at most 107 bytes)."""
    return hashlib.sha256(str(data_dir.resolve()).encode()).hexdigest()


def socket_folder(data_dir: Path) -> Path:
    """The folder holding a data folder's agent socket: short (a socket's path has at most 107 bytes) and the same
    across restarts, so a container keeps reaching whichever controller serves that data."""
    return Path("/tmp") / f"ee-agent-{data_digest(data_dir)[:16]}"


def bind(data_dir: Path) -> socket.socket:
    """The listening socket, replacing one a stopped controller left; open to the runner's user (nobody)."""
    folder = socket_folder(data_dir)
    folder.mkdir(mode=0o755, exist_ok=True)
    path = folder / SOCKET_NAME
    path.unlink(missing_ok=True)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    os.chmod(path, 0o666)
    listener.listen(128)
    return listener


class AgentRoutesOnly:
    """ASGI middleware: requests through the Unix socket reach only the agent routes."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        server = scope.get("server")
        through_socket = scope["type"] == "http" and (server is None or server[1] is None)
        if through_socket and not str(scope.get("path", "")).startswith(AGENT_PREFIXES):
            await send({"type": "http.response.start", "status": 403, "headers": [(b"content-type", b"text/plain")]})
            await send({"type": "http.response.body", "body": b"only the agent API is served to runners"})
            return
        await self.app(scope, receive, send)
