"""The controller's 422 answer for a request its models refuse, written so that it can always be sent.

FastAPI's own 422 echoes each refused input back, and two kinds of input the
models rightly refuse cannot be written out again: NaN and Infinity (Python's
JSON parser takes them; JSON has neither) and a lone UTF-16 surrogate
("\\udc00" in a JSON string). Each made the refusal a 500 with nothing said.
"""

from __future__ import annotations

import math
from typing import Any

from fastapi import Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse


def sendable(value: Any) -> Any:
    """``value`` with each non-finite float as text ("nan", "inf") and each lone surrogate escaped ("\\udc00")."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, dict):
        return {sendable(key): sendable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [sendable(item) for item in value]
    return value


async def unprocessable(request: Request, error: Exception) -> JSONResponse:
    """FastAPI's 422 body (``{"detail": [...]}``), every refused input made sendable."""
    assert isinstance(error, RequestValidationError)
    return JSONResponse(status_code=422, content={"detail": sendable(jsonable_encoder(error.errors()))})
