"""Anthropic Messages API (what Claude Code speaks): ``POST /v1/messages?beta=true``, SSE.

A turn is ``message_start`` (with the input usage), content blocks (``text``,
``tool_use`` whose input arrives as ``input_json_delta``), ``message_delta``
(stop reason and output usage) and ``message_stop``; the tool's answer comes
back as a ``tool_result`` block in the next user message.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator

from ..conversation import Conversation, Reply, last_user_text, text_of, without_reminders
from .request import ModelRequest
from .sse import event


class MessagesRequest(ModelRequest):
    messages: list[dict] = []


def _blocks(message: dict) -> list[dict]:
    content = message.get("content")
    return content if isinstance(content, list) else []


def conversation(request: MessagesRequest, request_chars: int) -> Conversation:
    """The conversation so far; a user message's words are read without Claude Code's reminders beside them."""
    results, since, last_result, first_result, user_text = 0, 0, "", "", ""
    said: list[str] = []  # each user message's words, in order
    seen: list[str] = []  # every tool result, in order
    earlier = 0  # how many of them came before the latest user message
    for message in request.messages:
        if message.get("role") != "user":
            continue
        answered = [block for block in _blocks(message) if block.get("type") == "tool_result"]
        if answered:  # tool results (Claude Code may add reminders beside them: those are not the user's words)
            texts = [c if isinstance(c := block.get("content"), str) else text_of(c) for block in answered]
            first_result = first_result if since else texts[0]
            results, since = results + len(answered), since + len(answered)
            last_result = texts[-1]
            seen += texts
        elif text := without_reminders(text_of(message.get("content"))):
            said.append(text)
            since, user_text, first_result, earlier = 0, text, "", len(seen)
    return Conversation(
        tools=[tool.get("name", "") for tool in request.tools],
        tool_calls_answered=results,
        user_text=user_text or last_user_text(request.messages),
        request_chars=request_chars,
        answered_since_user_text=since,
        last_tool_result=last_result,
        first_tool_result=first_result,
        opening_text=said[0] if len(said) > 1 else "",
        earlier_results=seen[:earlier],
    )


def usage(reply: Reply) -> dict:
    """Anthropic counts cache reads apart from input_tokens (which are the uncached rest)."""
    return {
        "input_tokens": reply.input_tokens - reply.cached_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": reply.cached_tokens,
        "output_tokens": reply.output_tokens,
    }


def content(reply: Reply) -> list[dict]:
    blocks: list[dict] = []
    if reply.text:
        blocks.append({"type": "text", "text": reply.text})
    if reply.tool_call:
        blocks.append(
            {
                "type": "tool_use",
                "id": f"toolu_{uuid.uuid4().hex[:24]}",
                "name": reply.tool_call.name,
                "input": reply.tool_call.arguments,
            }
        )
    return blocks


def message(reply: Reply, model: str) -> dict:
    return {
        "id": f"msg_{uuid.uuid4().hex[:24]}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content(reply),
        "stop_reason": "tool_use" if reply.tool_call else "end_turn",
        "stop_sequence": None,
        "usage": usage(reply),
    }


def stream(reply: Reply, model: str) -> Iterator[str]:
    whole = message(reply, model)
    yield event(
        {
            "type": "message_start",
            "message": {**whole, "content": [], "stop_reason": None, "usage": {**usage(reply), "output_tokens": 1}},
        },
        "message_start",
    )
    for index, block in enumerate(whole["content"]):
        if block["type"] == "text":
            yield event(
                {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}},
                "content_block_start",
            )
            yield event(
                {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": block["text"]}},
                "content_block_delta",
            )
        else:
            yield event(
                {"type": "content_block_start", "index": index, "content_block": {**block, "input": {}}},
                "content_block_start",
            )
            yield event(
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "input_json_delta", "partial_json": json.dumps(block["input"])},
                },
                "content_block_delta",
            )
        yield event({"type": "content_block_stop", "index": index}, "content_block_stop")
    yield event(
        {
            "type": "message_delta",
            "delta": {"stop_reason": whole["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": reply.output_tokens},
        },
        "message_delta",
    )
    yield event({"type": "message_stop"}, "message_stop")
