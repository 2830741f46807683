"""The product's side of an installed service: an MCP client that carries the server-held credential.

Only the controller talks to a service, and only with a connection's
credential opened for that one call: agents name a connection and an
action, never a secret. Each call is a fresh MCP session over streamable
HTTP (initialize, then one request), run on its own event loop in a worker
thread, because the routes that call it are synchronous. The MCP SDK is
imported at the first call, not with the controller: it costs over half a
second of CPU at every product start, and most instances never call a
service. (A harness that forks many controllers has its forkserver import it
once for all of them: ``harness.products.testbed.forked``.)
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, TypeVar

from . import mcp_sdk
from .models import ServiceAction

if TYPE_CHECKING:
    from mcp.client.session import ClientSession

CALL_TIMEOUT_S = 20.0
T = TypeVar("T")


class ServiceError(RuntimeError):
    """The service refused or could not be reached; the message is one line a person can act on."""


def _run(url: str, credential: str | None, work: Callable[[ClientSession], Awaitable[T]]) -> T:
    ClientSession = mcp_sdk.import_module("mcp.client.session").ClientSession  # noqa: N806 (the SDK's class)
    streamable_http_client = mcp_sdk.import_module("mcp.client.streamable_http").streamable_http_client
    create_mcp_http_client = mcp_sdk.import_module("mcp.shared._httpx_utils").create_mcp_http_client

    async def session() -> T:
        headers = {"authorization": f"Bearer {credential}"} if credential else {}
        async with create_mcp_http_client(headers=headers) as client:
            async with streamable_http_client(url, http_client=client) as (read, write):
                async with ClientSession(read, write) as mcp_session:
                    await mcp_session.initialize()
                    return await work(mcp_session)

    async def bounded() -> T:
        return await asyncio.wait_for(session(), CALL_TIMEOUT_S)

    with ThreadPoolExecutor(1, thread_name_prefix="service-call") as pool:
        try:
            return pool.submit(asyncio.run, bounded()).result()
        except Exception as error:  # transport, auth, protocol: one line, never the credential
            raise ServiceError(f"service at {url} failed: {_first_cause(error)}") from None


def _first_cause(error: BaseException) -> str:
    """The innermost message of an exception group (the SDK wraps transport errors in task groups)."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return (str(error) or type(error).__name__).splitlines()[0][:300]


def list_actions(url: str, credential: str) -> list[ServiceAction]:
    """The service's actions; those not marked read-only are protected (a connection's policy applies)."""

    async def tools(session: ClientSession) -> list[ServiceAction]:
        listed = await session.list_tools()
        return [
            ServiceAction(
                name=tool.name,
                description=(tool.description or "").strip().splitlines()[0] if tool.description else "",
                read_only=bool(tool.annotations and tool.annotations.read_only_hint),
            )
            for tool in listed.tools
        ]

    return _run(url, credential, tools)


def call_action(url: str, credential: str | None, action: str, arguments: dict[str, str]) -> tuple[bool, str]:
    """One call of ``action``: ``(ok, text)`` as the service answered it (a tool error is ``ok=False``)."""

    async def call(session: ClientSession) -> tuple[bool, str]:
        result = await session.call_tool(action, dict(arguments))
        text = "".join(getattr(part, "text", "") for part in result.content)
        return not result.is_error, text

    return _run(url, credential, call)
