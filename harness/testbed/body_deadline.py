"""A request body must arrive within a deadline: a client that never finishes sending is answered 408.

uvicorn bounds idle keep-alive connections but not a body that stops
halfway, so one slow or hostile client could hold a request (and a worker
thread waiting on it) open forever. This ASGI middleware times only the body:
once the last chunk is in, ``receive`` passes through untouched, so a long
download still watches for the client going away without a deadline.
"""

from __future__ import annotations

import asyncio
import os

from starlette.types import ASGIApp, Message, Receive, Scope, Send

ENV = "TESTBED_BODY_TIMEOUT_SECONDS"
DEFAULT_SECONDS = 30.0


def configured_seconds() -> float:
    """The deadline from ``TESTBED_BODY_TIMEOUT_SECONDS`` (a positive number), else 30 s."""
    try:
        value = float(os.environ.get(ENV, DEFAULT_SECONDS))
    except ValueError:
        return DEFAULT_SECONDS
    return value if value > 0 else DEFAULT_SECONDS


class BodyDeadline:
    def __init__(self, app: ASGIApp, seconds: float) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.seconds
        state = {"body_done": False, "started": False, "answered": False}

        async def timed_receive() -> Message:
            if state["body_done"]:
                return await receive()
            try:
                message = await asyncio.wait_for(receive(), max(deadline - loop.time(), 0.0))
            except TimeoutError:
                await answer_timeout()
                return {"type": "http.disconnect"}
            if message["type"] != "http.request" or not message.get("more_body", False):
                state["body_done"] = True
            return message

        async def answer_timeout() -> None:
            state["answered"] = True
            if state["started"]:
                return
            detail = f'{{"detail":"request body not received within {self.seconds:g} s"}}'.encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 408,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"connection", b"close"),
                        (b"content-length", str(len(detail)).encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": detail})

        async def guarded_send(message: Message) -> None:
            if state["answered"]:
                return  # the 408 went out; whatever the app says now is for a client that is gone
            if message["type"] == "http.response.start":
                state["started"] = True
            await send(message)

        try:
            await self.app(scope, timed_receive, guarded_send)
        except Exception:
            if not state["answered"]:
                raise  # an app error that has nothing to do with the deadline
