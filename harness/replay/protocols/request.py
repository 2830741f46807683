"""What every model request carries, whatever its wire format; each protocol adds its conversation field."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class ModelRequest(BaseModel):
    model_config = ConfigDict(extra="allow")  # CLIs send many more fields; the replay needs only these

    model: str
    tools: list[dict] = []
    stream: bool = False
