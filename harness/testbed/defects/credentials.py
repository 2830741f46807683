"""Defects that let a connection's credential out of the product."""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

from fastapi.responses import JSONResponse

from ..models import Connection
from .registry import declarer

defect = declarer("credentials")


@defect(
    "credential-in-api",
    at="connections.listed",
    summary="the connections list answers each connection's credential in clear",
)
def in_clear(found: list[Connection], *, open_credential: Callable[[int], str], **_: Any) -> JSONResponse:
    return JSONResponse([{**c.model_dump(), "credential": open_credential(c.id)} for c in found])


@defect(
    "credential-rendered",
    at="services-page.credentials",
    summary="the services list renders each connection's credential in an attribute of its row",
)
def rendered(
    shown: dict[int, str], *, connections: list[Connection], open_credential: Callable[[int], str], **_: Any
) -> dict[int, str]:
    return {c.id: open_credential(c.id) for c in connections}


@defect(
    "credential-in-api-encoded",
    at="connections.listed",
    summary="GET /api/connections answers each connection's credential base64-encoded, as a 'token'",
)
def encoded(found: list[Connection], *, open_credential: Callable[[int], str], **_: Any) -> JSONResponse:
    """ "Only an opaque token": the credential, base64-encoded."""
    return JSONResponse(
        [{**c.model_dump(), "token": base64.b64encode(open_credential(c.id).encode()).decode()} for c in found]
    )
