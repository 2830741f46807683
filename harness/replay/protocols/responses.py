"""OpenAI Responses API (what Codex CLI speaks): ``POST /v1/responses``, SSE.

Codex acts on ``response.output_item.done`` items (a ``function_call``, or a
``message``) and needs a closing ``response.completed`` carrying ``usage``;
the tool's answer comes back in the next request as ``function_call_output``.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

from ..conversation import Conversation, Reply, last_user_text, text_of
from .request import ModelRequest
from .sse import event


class ResponsesRequest(ModelRequest):
    input: list[dict] | str = []


def tool_names(tools: list[dict]) -> list[str]:
    """Flat names; a namespace (how Codex offers an MCP server's tools) contributes ``NAMESPACE::tool``."""
    names = []
    for tool in tools:
        if tool.get("type") == "namespace":
            names += [f"{tool.get('name')}::{inner.get('name')}" for inner in tool.get("tools", [])]
        else:
            names.append(tool.get("name", tool.get("type", "")))
    return names


def conversation(request: ResponsesRequest, request_chars: int) -> Conversation:
    items = request.input if isinstance(request.input, list) else []
    calls = {
        item.get("call_id")
        for item in items
        if item.get("type") in ("function_call", "custom_tool_call", "local_shell_call")
    }
    results, since, last_result, first_result = 0, 0, "", ""
    seen: list[str] = []  # every tool result, in order
    earlier = 0  # how many of them came before the latest user message
    for item in items:
        if item.get("type") in ("function_call_output", "custom_tool_call_output") and item.get("call_id") in calls:
            output = item.get("output")
            last_result = output if isinstance(output, str) else text_of(output, ("input_text", "output_text", "text"))
            first_result = first_result if since else last_result
            results, since = results + 1, since + 1
            seen.append(last_result)
        elif item.get("role") == "user" and item.get("type", "message") == "message" and text_of(item.get("content")):
            since, first_result, earlier = 0, "", len(seen)
    return Conversation(
        tools=tool_names(request.tools),
        tool_calls_answered=results,
        user_text=last_user_text(items),
        request_chars=request_chars,
        answered_since_user_text=since,
        last_tool_result=last_result,
        first_tool_result=first_result,
        earlier_results=seen[:earlier],
    )


def usage(reply: Reply) -> dict:
    return {
        "input_tokens": reply.input_tokens,
        "input_tokens_details": {"cached_tokens": reply.cached_tokens},
        "output_tokens": reply.output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": reply.input_tokens + reply.output_tokens,
    }


def output_items(reply: Reply) -> list[dict]:
    items: list[dict] = []
    if reply.text:
        items.append(
            {
                "type": "message",
                "id": f"msg_{uuid.uuid4().hex}",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": reply.text, "annotations": []}],
            }
        )
    if reply.tool_call:
        namespace, _, name = reply.tool_call.name.rpartition("::")
        item = {
            "type": "function_call",
            "id": f"fc_{uuid.uuid4().hex}",
            "status": "completed",
            "call_id": f"call_{uuid.uuid4().hex[:24]}",
            "name": name,
            "arguments": json.dumps(reply.tool_call.arguments),
        }
        items.append({**item, "namespace": namespace} if namespace else item)
    return items


def response(reply: Reply, model: str, response_id: str, status: str = "completed") -> dict:
    body: dict[str, Any] = {
        "id": response_id,
        "object": "response",
        "status": status,
        "model": model,
        "output": output_items(reply) if status == "completed" else [],
    }
    if status == "completed":
        body["usage"] = usage(reply)
    return body


def stream(reply: Reply, model: str) -> Iterator[str]:
    response_id = f"resp_{uuid.uuid4().hex}"
    sequence = iter(range(1_000_000))

    def emit(kind: str, **fields) -> str:
        return event({"type": kind, "sequence_number": next(sequence), **fields}, kind)

    yield emit("response.created", response=response(reply, model, response_id, status="in_progress"))
    items = output_items(reply)
    for index, item in enumerate(items):
        if item["type"] == "message":
            yield emit(
                "response.output_item.added", output_index=index, item={**item, "status": "in_progress", "content": []}
            )
            yield emit(
                "response.output_text.delta", item_id=item["id"], output_index=index, content_index=0, delta=reply.text
            )
        else:
            yield emit(
                "response.output_item.added",
                output_index=index,
                item={**item, "status": "in_progress", "arguments": ""},
            )
            yield emit(
                "response.function_call_arguments.delta",
                item_id=item["id"],
                output_index=index,
                delta=item["arguments"],
            )
        yield emit("response.output_item.done", output_index=index, item=item)
    yield emit("response.completed", response={**response(reply, model, response_id), "output": items})
