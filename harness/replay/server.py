"""The model replay server: a real HTTP server that plays a script over three wire protocols.

It stands in for a model provider so the real agent CLIs run for free and
deterministically. The default script plays at ``/v1/...``; any other script
at ``/scripts/<name>/v1/...``, so one server can serve every cell. Every
request is kept in ``calls`` (and at ``GET /replay/calls``) so a test can
prove what reached the "provider", e.g. nothing after a budget stop.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel

from .conversation import Conversation, Reply, reply, without_unoffered_tools
from .judge import JUDGE_SCRIPTS, judge_answer
from .protocols import chat, messages, responses
from .scripts import STORY_PACE_S, script
from .steps import Script

SSE_HEADERS = {"cache-control": "no-cache"}


class Call(BaseModel):
    """One request the server answered (or refused), as a test reads it back."""

    path: str
    script: str | None = None
    model: str | None = None
    tool_calls_answered: int | None = None
    tool: str | None = None
    tools: list[str] = []  # the tools the CLI offered with this call
    input_tokens: int = 0
    output_tokens: int = 0
    key: str | None = None  # the key presented, as a provider would see it: proves the proxy's key swap
    user_text: str = ""  # the latest user message, as the model would read it
    include_usage: bool | None = None  # Chat Completions: whether the client asked for usage in the stream


class CallLog:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls: list[Call] = []

    def add(self, call: Call) -> None:
        with self._lock:
            self._calls.append(call)

    def all(self) -> list[Call]:
        with self._lock:
            return list(self._calls)


def create_app(default_script: str = "build", pace_s: float = STORY_PACE_S) -> FastAPI:
    app = FastAPI(title="model replay", docs_url=None, redoc_url=None, openapi_url=None)
    log = CallLog()
    app.state.calls = log

    def presented_key(request: Request) -> str | None:
        bearer = request.headers.get("authorization", "")
        return request.headers.get("x-api-key") or (bearer.removeprefix("Bearer ") if bearer else None)

    async def play(
        raw: bytes,
        path: str,
        key: str | None,
        name: str | None,
        parse: Callable,
        read: Callable[..., Conversation],
        render_stream: Callable[[Reply, str], Iterator[str]],
        render_whole: Callable[[Reply, str], dict],
    ):
        request = parse(raw)
        conversation = read(request, len(raw))
        if name in JUDGE_SCRIPTS:
            return await judged(request, conversation, path, key, name, render_whole)
        chosen: Script = without_unoffered_tools(
            script(
                name or default_script,
                conversation.user_text,
                pace_s,
                conversation.first_tool_result,
                conversation.opening_text,
                conversation.earlier_results,
            ),
            conversation.tools,
        )
        answer = reply(chosen, conversation)
        log.add(
            Call(
                path=path,
                script=chosen.name,
                model=request.model,
                tool_calls_answered=conversation.tool_calls_answered,
                tool=answer.tool_call.name if answer.tool_call else None,
                tools=conversation.tools,
                input_tokens=answer.input_tokens,
                output_tokens=answer.output_tokens,
                key=key,
                user_text=conversation.user_text,
                include_usage=(getattr(request, "stream_options", None) or {}).get("include_usage"),
            )
        )
        await asyncio.sleep(answer.think_s)  # the model thinks: paced scripts' window for a person to act in
        if request.stream:
            return StreamingResponse(
                render_stream(answer, request.model), media_type="text/event-stream", headers=SSE_HEADERS
            )
        return JSONResponse(render_whole(answer, request.model))

    async def judged(request, conversation: Conversation, path: str, key: str | None, name: str, render_whole):
        """A judge script: one whole answer to the judge's prompt, marked scripted (``x-replay``)."""
        answer = judge_answer(name, conversation.user_text)
        rendered = Reply(
            text=answer.text,
            tool_call=None,
            input_tokens=max(conversation.request_chars // 4, 1),
            cached_tokens=0,
            output_tokens=len(answer.text) // 4 + 16,
        )
        log.add(Call(path=path, script=name, model=request.model, key=key, user_text=conversation.user_text))
        try:
            await asyncio.sleep(answer.think_s)
        except asyncio.CancelledError:  # the server stops while a slow judge "thinks": nobody waits for it any more
            return JSONResponse({"error": {"message": "replay stopping"}}, status_code=503)
        body = render_whole(rendered, request.model)
        if answer.refused and "choices" in body:
            body["choices"][0]["message"] |= {"content": None, "refusal": answer.text}
        elif answer.refused:
            body["stop_reason"] = "refusal"
        return JSONResponse(body, headers={"x-replay": "scripted"})

    for prefix in ("", "/scripts/{name}"):

        @app.post(prefix + "/v1/responses")
        async def post_responses(request: Request, name: str | None = None):
            return await play(
                await request.body(),
                request.url.path,
                presented_key(request),
                name,
                responses.ResponsesRequest.model_validate_json,
                responses.conversation,
                responses.stream,
                lambda answer, model: responses.response(answer, model, "resp_replay"),
            )

        @app.post(prefix + "/v1/messages")
        async def post_messages(request: Request, name: str | None = None):
            return await play(
                await request.body(),
                request.url.path,
                presented_key(request),
                name,
                messages.MessagesRequest.model_validate_json,
                messages.conversation,
                messages.stream,
                messages.message,
            )

        @app.post(prefix + "/v1/messages/count_tokens")
        async def count_tokens(request: Request, name: str | None = None):
            return {"input_tokens": len(await request.body()) // 4}

        @app.post(prefix + "/v1/chat/completions")
        async def post_chat(request: Request, name: str | None = None):
            return await play(
                await request.body(),
                request.url.path,
                presented_key(request),
                name,
                chat.ChatRequest.model_validate_json,
                chat.conversation,
                chat.stream,
                chat.completion,
            )

    @app.get("/replay/calls")
    def calls() -> list[Call]:
        return log.all()

    @app.api_route("/{rest:path}", methods=["GET", "POST", "PUT", "DELETE", "HEAD"])
    async def unknown(rest: str, request: Request):
        """Anything else a CLI tries is logged (so tests see it) and refused."""
        log.add(Call(path=request.url.path, key=presented_key(request)))
        return JSONResponse(
            {"error": {"message": f"replay server has no {request.method} {request.url.path}", "type": "not_found"}},
            status_code=404,
        )

    return app
