"""What a cassette holds: the cell it was recorded on, the story's drawn inputs, and every model exchange in order.

Requests are kept as the agent CLI sent them (no header at all, so no key;
known secrets redacted), answers as the model streamed them, event by event,
each with its offset from the request, so a replay keeps the model's pauses
(a fault story needs the agent mid-work when the fault lands).
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from harness.core.story_inputs import DrawnInput

CASSETTE_FILE = "cassette.json"
FORMAT = 1


class CassetteError(ValueError):
    """A cassette that cannot be read or does not fit the cell: one line, said before anything starts."""


class StreamedEvent(BaseModel):
    model_config = ConfigDict(frozen=True)

    at_s: float = Field(ge=0, description="seconds after the request arrived")
    data: str = Field(description="one server-sent event, without its blank-line terminator")


class Exchange(BaseModel):
    """One model call: what was asked and what came back."""

    model_config = ConfigDict(frozen=True)

    index: int = Field(ge=0, description="the order in which the requests arrived")
    method: str
    path: str
    request: str = Field(description="the request body as sent, secrets redacted")
    status: int
    content_type: str
    body: str | None = Field(default=None, description="a whole (not streamed) answer")
    events: tuple[StreamedEvent, ...] = ()


class Cassette(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    format: int = FORMAT
    cell: str = Field(description="the execution id it was recorded on")
    case: str
    profile: str
    product: str
    agent_clis: dict[str, str] = Field(default_factory=dict, description="the CLI and its pinned package, if any")
    recorded_at: str
    upstream: str = Field(description="what answered while recording: the model replay, or the provider")
    inputs: tuple[DrawnInput, ...] = ()
    exchanges: tuple[Exchange, ...] = ()

    def write(self, folder: Path) -> Path:
        path = folder / CASSETTE_FILE
        path.write_text(self.model_dump_json(indent=1))
        return path


def load_cassette(where: Path) -> Cassette:
    """The cassette at ``where``: its file, or an attempt's package holding one."""
    path = where / CASSETTE_FILE if where.is_dir() else where
    if not path.is_file():
        raise CassetteError(
            f"no cassette at {where} (give a cassette file or an attempt folder holding {CASSETTE_FILE})"
        )
    try:
        cassette = Cassette.model_validate_json(path.read_bytes())
    except (ValidationError, json.JSONDecodeError, UnicodeDecodeError) as error:
        first = str(error).splitlines()[0]
        raise CassetteError(f"{path} is not a cassette: {first}") from None
    if cassette.format != FORMAT:
        raise CassetteError(f"{path} has cassette format {cassette.format}; this harness reads format {FORMAT}")
    return cassette
