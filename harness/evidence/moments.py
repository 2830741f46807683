"""What the harness sees between a story's steps, kept with its time: the API calls it made and every look the
invariant watch took at a wait (:class:`harness.checks.watch_samples.WatchSample`).

A final snapshot says where the product ended; the reviewer's timeline needs
the way there (the task that read Done while a run was still active shows only
in a sample taken at that moment). Each line is appended as it happens, so a
crash keeps what came before it, and the secret scan reads the file like any other.
"""

from __future__ import annotations

import threading
import time
from datetime import datetime
from pathlib import Path
from typing import TypeVar

import httpx
from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from harness.checks.watch_samples import WatchSample
from harness.core.records import utc_now

API_CALLS = "timeline/api-calls.jsonl"
RECORD_SAMPLES = "timeline/record-samples.jsonl"
_STARTED = "everyday.started"
M = TypeVar("M", bound=BaseModel)


class ApiCall(BaseModel):
    """One request the harness made of the product's public API: never its body, only what the timeline shows."""

    at: datetime
    method: str
    path: str
    status: int | None = Field(None, description="None: the product gave no answer")
    seconds: float
    error: str | None = None


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
        text = line.model_dump_json(exclude_none=self.exclude_none) + "\n"
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a") as handle:
                handle.write(text)


def watch_client(client: httpx.Client, log: JsonLines) -> None:
    """Log every request ``client`` sends, with its status and how long the answer took to start."""

    def sent(request: httpx.Request) -> None:
        request.extensions[_STARTED] = (utc_now(), time.perf_counter())

    def answered(response: httpx.Response) -> None:
        request = response.request
        at, started = request.extensions.get(_STARTED, (utc_now(), time.perf_counter()))
        log.add(
            ApiCall(
                at=at,
                method=request.method,
                path=request.url.path,
                status=response.status_code,
                seconds=round(time.perf_counter() - started, 4),
            )
        )

    client.event_hooks["request"] = [*client.event_hooks["request"], sent]
    client.event_hooks["response"] = [*client.event_hooks["response"], answered]


def valid_lines(path: Path, model: type[M]) -> list[M]:
    """Every line of a JSON-lines file that is a valid ``model``: all in one validation when the file is whole, line
    by line when one is torn (a crash mid-write) or malformed; none when the file is missing (an older package)."""
    if not path.is_file():
        return []
    lines = [line for line in path.read_text(errors="replace").splitlines() if line.strip()]
    try:
        return TypeAdapter(list[model]).validate_json(f"[{','.join(lines)}]")  # type: ignore[valid-type]
    except ValidationError:
        pass
    kept = []
    for line in lines:
        try:
            kept.append(model.model_validate_json(line))
        except ValidationError:
            continue
    return kept


def watch_samples(folder: Path) -> list[WatchSample]:
    """The invariant watch's looks kept in an attempt's package, in order: the one reader for every view of them
    (a regrade reads the same file as the argument of :func:`harness.checks.watch_samples.watched_invariants`)."""
    return valid_lines(folder / RECORD_SAMPLES, WatchSample)
