"""What the harness sees between a story's steps, kept with its time: the API calls it made and every look the
invariant watch took (:class:`harness.checks.watch_samples.WatchSample`).

A final snapshot says where the product ended; the reviewer's timeline needs
the way there (the task that read Done while a run was still active shows only
in a sample taken at that moment). Each line is appended as it happens, so a
crash keeps what came before it, and the secret scan reads the file like any other.
"""

from __future__ import annotations

import functools
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any, NotRequired

import httpx
from pydantic import BaseModel, TypeAdapter, ValidationError
from typing_extensions import TypedDict

from harness.checks.watch_samples import WatchSample
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


class JsonLines:
    """An append-only file of pydantic lines, safe to write from the story's threads.

    ``exclude_none``: leave unset fields out (a short line for the timeline); a file a rule reads as its argument
    keeps every field, so each line is exactly the item the rule was given.
    """

    def __init__(self, path: Path, exclude_none: bool = True) -> None:
        self.path = path
        self.exclude_none = exclude_none
        self._lock = threading.Lock()

    def add(self, line: BaseModel) -> None:
        self.write(line.model_dump_json(exclude_none=self.exclude_none))

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


@functools.cache
def _adapters(model: Any) -> tuple[TypeAdapter[Any], TypeAdapter[Any]]:
    """A list's and a line's adapter per model (a model or a typed dict), made once per process: making one costs
    more than validating a package's lines."""
    return TypeAdapter(list[model]), TypeAdapter(model)


def valid_lines(path: Path, model: Any) -> list[Any]:
    """Every line of a JSON-lines file that is a valid ``model``: all in one validation when the file is whole, line
    by line when one is torn (a crash mid-write) or malformed, or blank; none when the file is missing (an older
    package).

    Lines end at a newline and nowhere else: a JSON string may hold a line separator of Unicode's (U+2028, NEL)
    unescaped, and cutting there would tear a valid line. The whole file is validated as one array made by turning
    its newlines into commas, without splitting it: a report reads every attempt's files.
    """
    if not path.is_file():
        return []
    text = path.read_text(errors="replace").strip()
    whole, single = _adapters(model)
    try:
        return whole.validate_json(f"[{text.replace(chr(10), ',')}]")  # type: ignore[no-any-return]
    except ValidationError:
        pass
    kept = []
    for line in text.split("\n"):
        if not line.strip():
            continue
        try:
            kept.append(single.validate_json(line))
        except ValidationError:
            continue
    return kept


def watch_samples(folder: Path) -> list[WatchSample]:
    """The invariant watch's looks kept in an attempt's package, in order: the one reader for every view of them
    (a regrade reads the same file as the argument of :func:`harness.checks.watch_samples.watched_invariants`)."""
    return valid_lines(folder / RECORD_SAMPLES, WatchSample)
