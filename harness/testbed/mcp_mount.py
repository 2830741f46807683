"""Where the product's MCP tool server is mounted (``/mcp``), and why it loads only when wanted.

Importing the MCP SDK costs over a second of CPU, and only live agent CLIs
use the tool server, never in the first moments of a run. So the controller
answers its API at once and loads the tool server in a worker thread once
the product has a live agent (:meth:`ToolServerMount.want`: one is hired,
or found at start-up, or its run starts), or at the first tool request,
which waits for it. An instance that only ever runs the scripted agent
never pays for it. Only a request bearing a live run's
token gets that far (401 otherwise).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from typing import Any

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from . import faults, mcp_sdk
from .controller import Controller, token_hash

PATH = "/mcp"

log = logging.getLogger("testbed.mcp")


def bearer(headers: Any) -> str:
    value = (headers or {}).get("authorization", "")
    return value[7:].strip() if value.lower().startswith("bearer ") else ""


def run_of(controller: Controller, token: str) -> sqlite3.Row | None:
    return controller.db.one("SELECT * FROM runs WHERE token_hash = ?", token_hash(token)) if token else None


class ToolServerMount:
    """ASGI app at ``/mcp``: the run-token gate in front of a tool server loaded in the background."""

    def __init__(self, controller: Controller) -> None:
        self.controller = controller
        self._loaded = asyncio.Event()
        self._app: ASGIApp | None = None
        self._stopping = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._serving: asyncio.Task[None] | None = None

    def open(self) -> None:
        """Called on the app's event loop at start-up: from now on :meth:`want` may load the tool server."""
        self._loop = asyncio.get_running_loop()

    async def close(self) -> None:
        """Stop the tool server's session manager, if it was ever loaded."""
        self._stopping.set()
        if self._serving is not None:
            await self._serving

    def want(self) -> None:
        """Start loading the tool server (once); safe from any thread, such as the scheduler's."""
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._load)

    def _load(self) -> None:
        if self._serving is None and not self._stopping.is_set():
            self._serving = asyncio.create_task(self.serve(self._stopping))

    async def serve(self, stopping: asyncio.Event) -> None:
        """Load the tool server and keep its session manager running until ``stopping`` is set."""
        try:
            await asyncio.sleep(faults.tool_server_load_delay())
            tools_module = await asyncio.to_thread(mcp_sdk.import_module, "harness.testbed.mcp_tools")
            tools = tools_module.create_server(self.controller)
            app = tools.streamable_http_app(streamable_http_path="/", stateless_http=True, json_response=True)
            async with tools.session_manager.run():
                self._app = app
                self._loaded.set()
                await stopping.wait()
        except Exception:
            log.exception("the MCP tool server could not load; tool calls answer 503")
        finally:
            self._loaded.set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = {key.decode("latin-1").lower(): value.decode("latin-1") for key, value in scope["headers"]}
            if run_of(self.controller, bearer(headers)) is None:
                await JSONResponse({"detail": "a run token is required"}, status_code=401)(scope, receive, send)
                return
        self._load()
        await self._loaded.wait()
        if self._app is None:
            await JSONResponse({"detail": "the tool server is unavailable"}, status_code=503)(scope, receive, send)
            return
        await self._app(scope, receive, send)
