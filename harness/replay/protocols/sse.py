"""Server-sent events framing shared by the three protocols."""

from __future__ import annotations

import json


def event(data: dict | str, name: str | None = None) -> str:
    payload = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    return (f"event: {name}\n" if name else "") + f"data: {payload}\n\n"
