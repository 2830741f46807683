"""One model call over an OpenAI-compatible or Anthropic endpoint, through httpx.

httpx rather than the official ``openai`` / ``anthropic`` SDKs: both are
heavy to import (each pulls its own typed client tree, and a judge process
imports it for one POST), httpx is already the project's HTTP client, and
the two request shapes a judge needs are small and stable. The key goes in a
header only; it is never returned, logged or stored.
"""

from __future__ import annotations

from typing import Literal
from urllib.parse import urlsplit, urlunsplit

import httpx
from pydantic import BaseModel

from harness.judges.models import Usage
from harness.judges.settings import JudgeSettings

ANTHROPIC_VERSION = "2023-06-01"
REPLAY_HEADER = "x-replay"


class Completion(BaseModel):
    """What came back: the reply text verbatim, how it ended, and its usage."""

    text: str
    ended: Literal["done", "refused", "truncated"] = "done"
    usage: Usage = Usage()
    scripted: bool = False  # the endpoint said it is the local replay (its ``x-replay`` header): scripted evidence


class TransportError(RuntimeError):
    """No usable answer from the endpoint (connection, timeout, HTTP error, an answer of another shape)."""


def public_endpoint(endpoint: str) -> str:
    """The endpoint as recorded: no user, password, query or fragment (where a key could hide)."""
    parts = urlsplit(endpoint)
    host = parts.hostname or ""
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


def complete(settings: JudgeSettings, system: str, prompt: str) -> Completion:
    """One non-streamed completion of ``prompt`` under ``system``."""
    if not settings.endpoint or not settings.model:
        raise TransportError("no judge endpoint or model configured (--judge-endpoint, --judge-model)")
    base = settings.endpoint.rstrip("/")
    key = settings.api_key()
    try:
        if settings.protocol == "anthropic":
            answer = httpx.post(
                f"{base}/v1/messages",
                headers={"anthropic-version": ANTHROPIC_VERSION} | ({"x-api-key": key} if key else {}),
                json={
                    "model": settings.model,
                    "system": system,
                    "messages": [{"role": "user", "content": prompt}],
                    "max_tokens": settings.max_tokens,
                    "temperature": settings.temperature,
                },
                timeout=settings.timeout_s,
            )
        else:
            answer = httpx.post(
                f"{base}/v1/chat/completions",
                headers={"authorization": f"Bearer {key}"} if key else {},
                json={
                    "model": settings.model,
                    "messages": [{"role": "system", "content": system}, {"role": "user", "content": prompt}],
                    "max_tokens": settings.max_tokens,
                    "temperature": settings.temperature,
                },
                timeout=settings.timeout_s,
            )
        answer.raise_for_status()
        body = answer.json()
    except (httpx.HTTPError, ValueError) as error:
        raise TransportError(f"{type(error).__name__}: {str(error)[:200]}") from error
    try:
        completion = _anthropic(body) if settings.protocol == "anthropic" else _openai(body)
    except (KeyError, IndexError, TypeError) as error:
        raise TransportError(f"an answer of another shape: {type(error).__name__} {error}") from error
    return completion.model_copy(update={"scripted": answer.headers.get(REPLAY_HEADER) == "scripted"})


def _openai(body: dict) -> Completion:
    choice = body["choices"][0]
    message = choice["message"]
    usage = body.get("usage") or {}
    counted = Usage(input_tokens=usage.get("prompt_tokens", 0), output_tokens=usage.get("completion_tokens", 0))
    if message.get("refusal"):
        return Completion(text=message["refusal"], ended="refused", usage=counted)
    ended = "truncated" if choice.get("finish_reason") == "length" else "done"
    return Completion(text=message.get("content") or "", ended=ended, usage=counted)


def _anthropic(body: dict) -> Completion:
    text = "".join(part.get("text", "") for part in body["content"] if part.get("type") == "text")
    usage = body.get("usage") or {}
    counted = Usage(input_tokens=usage.get("input_tokens", 0), output_tokens=usage.get("output_tokens", 0))
    stop = body.get("stop_reason")
    ended = "refused" if stop == "refusal" else "truncated" if stop == "max_tokens" else "done"
    return Completion(text=text, ended=ended, usage=counted)
