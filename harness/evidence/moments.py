"""What the harness sees between a story's steps, kept with its time: the API calls it made and every sample
of the product's records it took at a wait.

A final snapshot says where the product ended; the reviewer's timeline needs
the way there (the task that read Done while a run was still active shows only
in a sample taken at that moment). Each line is appended as it happens, so a
crash keeps what came before it, and the secret scan reads the file like any other.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, NotRequired

import httpx
from pydantic import BaseModel, Field, TypeAdapter
from typing_extensions import TypedDict

from harness.core.product_records import Task
from harness.core.records import utc_now
from harness.products.http import unanswered

API_CALLS = "timeline/api-calls.jsonl"
RECORD_SAMPLES = "timeline/record-samples.jsonl"
_STARTED = "everyday.started"


class ApiCall(TypedDict):
    """One request the harness made of the product's public API: never its body, only what the timeline shows.

    A typed dict validated by pydantic (``API_CALL``) rather than a model: an attempt logs hundreds of calls and a
    report reads every attempt's, and a dict is half the cost of a model instance to validate.
    """

    at: datetime
    method: str
    path: str
    status: NotRequired[int | None]  # absent or None: the product gave no answer
    seconds: float
    error: NotRequired[str | None]


API_CALL = TypeAdapter(ApiCall)


class RunSample(BaseModel):
    id: str
    status: str


class TaskSample(BaseModel):
    id: str
    status: str
    runs: list[RunSample] = Field(default_factory=list)
    messages: int = 0
    messages_read: int = 0
    deliveries: int = 0


class RecordSample(BaseModel):
    """The product's records as one wait read them."""

    at: datetime
    tasks: list[TaskSample]


class JsonLines:
    """An append-only file of pydantic lines, safe to write from the story's threads."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def add(self, line: BaseModel) -> None:
        self.write(line.model_dump_json(exclude_none=True))

    def add_call(self, call: ApiCall) -> None:
        self.write(API_CALL.dump_json(call, exclude_none=True).decode())

    def write(self, json_line: str) -> None:
        text = json_line + "\n"
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a") as handle:
                handle.write(text)


def watch_client(client: httpx.Client, log: JsonLines) -> None:
    """Log every request ``client`` sends: with its status and how long the answer took to start, or, when none
    came (no answer in time, a connection refused or cut), with the error and how long the harness waited.

    An unanswered call is the one a reviewer most needs on the timeline, and httpx's response hook never sees it:
    so ``client.send`` (which every ``request``, ``get`` and ``stream`` goes through) is wrapped to log the
    transport's error before it propagates unchanged.
    """

    def sent(request: httpx.Request) -> None:
        request.extensions[_STARTED] = (utc_now(), time.perf_counter())

    def logged(request: httpx.Request, status: int | None, error: str | None = None) -> None:
        at, started = request.extensions.get(_STARTED, (utc_now(), time.perf_counter()))
        seconds = round(time.perf_counter() - started, 4)
        log.add_call(
            ApiCall(at=at, method=request.method, path=request.url.path, status=status, seconds=seconds, error=error)
        )

    def answered(response: httpx.Response) -> None:
        logged(response.request, response.status_code)

    send = client.send

    def send_and_log_failure(request: httpx.Request, **options: Any) -> httpx.Response:
        try:
            return send(request, **options)
        except httpx.TransportError as error:
            said = str(error)
            logged(request, None, f"{unanswered(error)}: {said}" if said else unanswered(error))
            raise

    client.event_hooks["request"] = [*client.event_hooks["request"], sent]
    client.event_hooks["response"] = [*client.event_hooks["response"], answered]
    client.send = send_and_log_failure  # type: ignore[method-assign]


def sample_of(tasks: Sequence[Task]) -> RecordSample:
    """The parts of each task the timeline plots: its status, its runs', and its messages stored and read."""
    return RecordSample(
        at=utc_now(),
        tasks=[
            TaskSample(
                id=str(task.id),
                status=str(task.status),
                runs=[RunSample(id=str(run.id), status=str(run.status)) for run in task.runs],
                messages=sum(1 for c in task.comments if c.author_kind == "user"),
                messages_read=sum(1 for c in task.comments if c.author_kind == "user" and c.consumed_by_run_id),
                deliveries=len(task.deliveries),
            )
            for task in tasks
        ],
    )
