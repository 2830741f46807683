"""Reading token usage out of model responses, streamed or not, in the three wire protocols.

Each protocol puts usage somewhere else (Responses: ``response.completed``;
Messages: ``message_start`` then ``message_delta``; Chat Completions: the
chunk that carries ``usage``). They are all reduced to one :class:`Usage`
whose input count excludes cached tokens, so one price formula fits all.
"""

from __future__ import annotations

import json
from typing import Literal

from pydantic import BaseModel

Protocol = Literal["responses", "messages", "chat"]


class Usage(BaseModel):
    input_tokens: int = 0  # uncached input
    cached_input_tokens: int = 0
    cache_write_tokens: int = 0
    output_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.cached_input_tokens + self.cache_write_tokens + self.output_tokens


def protocol_of(path: str) -> Protocol | None:
    """Which wire protocol a request path speaks; None for anything that is not a model call."""
    path = path.rstrip("/")
    if path.endswith("/responses"):
        return "responses"
    if path.endswith("/messages"):
        return "messages"
    if path.endswith("/chat/completions"):
        return "chat"
    return None


def _openai_style(usage: dict, input_key: str, output_key: str, details_key: str) -> Usage:
    cached = int((usage.get(details_key) or {}).get("cached_tokens") or 0)
    return Usage(
        input_tokens=int(usage.get(input_key) or 0) - cached,
        cached_input_tokens=cached,
        output_tokens=int(usage.get(output_key) or 0),
    )


def _anthropic(usage: dict) -> Usage:
    return Usage(
        input_tokens=int(usage.get("input_tokens") or 0),
        cached_input_tokens=int(usage.get("cache_read_input_tokens") or 0),
        cache_write_tokens=int(usage.get("cache_creation_input_tokens") or 0),
        output_tokens=int(usage.get("output_tokens") or 0),
    )


class UsageReader:
    """Feed it a response (whole body, or SSE bytes as they pass); ``usage`` is what it found, or None."""

    def __init__(self, protocol: Protocol) -> None:
        self.protocol = protocol
        self.usage: Usage | None = None
        self._buffer = b""
        self._anthropic: dict = {}
        self.complete = False  # the response's last event has been read: its usage is final

    def body(self, raw: bytes) -> None:
        """A whole, non-streamed JSON response."""
        try:
            data = json.loads(raw)
        except ValueError:
            return
        usage = data.get("usage") if isinstance(data, dict) else None
        if not isinstance(usage, dict):
            return
        if self.protocol == "responses":
            self.usage = _openai_style(usage, "input_tokens", "output_tokens", "input_tokens_details")
        elif self.protocol == "chat":
            self.usage = _openai_style(usage, "prompt_tokens", "completion_tokens", "prompt_tokens_details")
        else:
            self.usage = _anthropic(usage)

    def feed(self, chunk: bytes) -> None:
        """Streamed bytes, in whatever pieces the network delivers them."""
        self._buffer += chunk
        *lines, self._buffer = self._buffer.split(b"\n")
        for line in lines:
            line = line.strip()
            if line.startswith(b"data:"):
                self._event(line[5:].strip())

    def _event(self, payload: bytes) -> None:
        if payload == b"[DONE]":
            self.complete = True
        if not payload or payload == b"[DONE]":
            return
        try:
            data = json.loads(payload)
        except ValueError:
            return
        if not isinstance(data, dict):
            return
        kind = data.get("type")
        if kind in ("response.completed", "response.incomplete", "response.failed", "message_stop"):
            self.complete = True
        if self.protocol == "responses" and kind in ("response.completed", "response.incomplete", "response.failed"):
            usage = (data.get("response") or {}).get("usage")
            if isinstance(usage, dict):
                self.usage = _openai_style(usage, "input_tokens", "output_tokens", "input_tokens_details")
        elif self.protocol == "chat" and isinstance(data.get("usage"), dict):
            self.usage = _openai_style(data["usage"], "prompt_tokens", "completion_tokens", "prompt_tokens_details")
        elif self.protocol == "messages" and kind in ("message_start", "message_delta"):
            usage = (data.get("message") or {}).get("usage") if kind == "message_start" else data.get("usage")
            if isinstance(usage, dict):
                self._anthropic.update({key: value for key, value in usage.items() if value is not None})
                self.usage = _anthropic(self._anthropic)

    def finish(self) -> None:
        """The stream ended: a last event without a trailing newline still counts."""
        if self._buffer.strip().startswith(b"data:"):
            self._event(self._buffer.strip()[5:].strip())
        self._buffer = b""
