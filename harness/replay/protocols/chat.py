"""OpenAI Chat Completions, streamed (what OpenCode speaks through an OpenAI-compatible provider).

Chunks carry ``delta.content`` and ``delta.tool_calls``; the last chunk
before ``[DONE]`` has the finish reason and ``usage``; the tool's answer
comes back as a ``role: tool`` message.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator

from ..conversation import Conversation, Reply, last_user_text, text_of
from .request import ModelRequest
from .sse import event


class ChatRequest(ModelRequest):
    messages: list[dict] = []


def conversation(request: ChatRequest, request_chars: int) -> Conversation:
    results, since, last_result, first_result = 0, 0, "", ""
    seen: list[str] = []  # every tool result, in order
    earlier = 0  # how many of them came before the latest user message
    for message in request.messages:
        if message.get("role") == "tool":
            content = message.get("content")
            last_result = content if isinstance(content, str) else text_of(content)
            first_result = first_result if since else last_result
            results, since = results + 1, since + 1
            seen.append(last_result)
        elif message.get("role") == "user" and text_of(message.get("content")):
            since, first_result, earlier = 0, "", len(seen)
    return Conversation(
        tools=[tool.get("function", {}).get("name", "") for tool in request.tools],
        tool_calls_answered=results,
        user_text=last_user_text(request.messages),
        request_chars=request_chars,
        answered_since_user_text=since,
        last_tool_result=last_result,
        first_tool_result=first_result,
        earlier_results=seen[:earlier],
    )


def usage(reply: Reply) -> dict:
    return {
        "prompt_tokens": reply.input_tokens,
        "completion_tokens": reply.output_tokens,
        "total_tokens": reply.input_tokens + reply.output_tokens,
        "prompt_tokens_details": {"cached_tokens": reply.cached_tokens},
    }


def _tool_calls(reply: Reply) -> list[dict]:
    if not reply.tool_call:
        return []
    return [
        {
            "index": 0,
            "id": f"call_{uuid.uuid4().hex[:24]}",
            "type": "function",
            "function": {"name": reply.tool_call.name, "arguments": json.dumps(reply.tool_call.arguments)},
        }
    ]


def completion(reply: Reply, model: str) -> dict:
    message: dict = {"role": "assistant", "content": reply.text or None}
    if reply.tool_call:
        message["tool_calls"] = [
            {key: value for key, value in call.items() if key != "index"} for call in _tool_calls(reply)
        ]
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if reply.tool_call else "stop"}],
        "usage": usage(reply),
    }


def stream(reply: Reply, model: str) -> Iterator[str]:
    head = {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
    }

    def chunk(delta: dict, finish: str | None = None, **extra) -> str:
        return event({**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra})

    yield chunk({"role": "assistant", "content": ""})
    if reply.text:
        yield chunk({"content": reply.text})
    if reply.tool_call:
        yield chunk({"tool_calls": _tool_calls(reply)})
    yield chunk({}, "tool_calls" if reply.tool_call else "stop")
    yield event({**head, "choices": [], "usage": usage(reply)})
    yield event("[DONE]")
