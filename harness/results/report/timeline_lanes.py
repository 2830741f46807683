"""Each lane of the reviewer's timeline, read from one attempt package and nothing else.

Every reader takes the package folder (and the record) and returns events
with the clock they were read on; a file an older harness did not write
yields no events, never an error, so an old package still shows its lanes.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from datetime import datetime
from enum import StrEnum
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple, NotRequired

from typing_extensions import TypedDict

from harness.agents.meter import CALL_LOG_PREFIX
from harness.core.records import AttemptRecord, TimelineEvent
from harness.evidence.moments import API_CALLS, RECORD_SAMPLES, ApiCall, valid_lines
from harness.results.assessed import CurrentChecks
from harness.results.report.trace_summary import TraceSummary


class Lane(StrEnum):
    STEP = "step"
    API = "api"
    RECORD = "record"
    MODEL = "model"
    FAULT = "fault"
    CHECK = "check"
    TRACE = "trace"


LANE_TITLES = {
    Lane.STEP: "browser steps",
    Lane.API: "API calls",
    Lane.RECORD: "product records",
    Lane.MODEL: "model calls",
    Lane.FAULT: "injected faults",
    Lane.CHECK: "checks",
    Lane.TRACE: "Playwright trace",
}
HARNESS_CLOCK = "harness"
RECORD_CLOCK = "product, read by the invariant watch"
ACTIVE_RUN = frozenset({"queued", "running", "starting"})


class Event(NamedTuple):
    """One row's facts. A named tuple, not a model or a dataclass: a report makes hundreds of thousands of them from
    values already validated where they were read, and the lanes that make the most (API calls, records) make each
    with one C call (``new_event``) rather than through a Python ``__init__``."""

    lane: Lane
    at: datetime
    clock: str
    title: str
    seconds: float | None = None
    detail: str = ""
    problem: bool = False
    image: str | None = None  # a package-relative screenshot
    check_id: str | None = None


new_event: Callable[[tuple[Lane, datetime, str, str, float | None, str, bool, None, None]], Event] = partial(
    tuple.__new__, Event
)
"""An event of every field in order (lane, at, clock, title, seconds, detail, problem, no image, no check), made in
C: without the named tuple's Python-level ``__new__`` or a Python frame of its own."""


def screenshot_of(note: TimelineEvent) -> str | None:
    """The package-relative screenshot a note took (a package from before notes had kinds says so in its words)."""
    if note.kind == "screenshot" or (note.kind is None and note.step.startswith("screenshot ")):
        return note.detail if note.detail.endswith(".png") else None
    return None


def steps_and_faults(record: AttemptRecord) -> list[Event]:
    """The story's own notes: steps and screenshots in the browser lane, faults with how long they lasted."""
    events = []
    for note in record.timeline:
        if note.kind == "check" or (note.kind is None and note.step.startswith("check ")):
            continue  # checks come from the current assessment (see ``checks``)
        lane = Lane.FAULT if note.kind == "fault" else Lane.STEP
        seconds = (note.until - note.at).total_seconds() if note.until else None
        image = screenshot_of(note)
        events.append(
            Event(
                lane=lane,
                at=note.at,
                seconds=seconds,
                clock=HARNESS_CLOCK,
                title=note.step,
                detail=note.detail,
                image=image,
            )
        )
    return events


def checks(record: AttemptRecord, current: CurrentChecks) -> list[Event]:
    """Each check placed when it was decided: a failure at the moment it was observed (its note on the timeline);
    a check the record never noted (decided on a regrade) at the attempt's end."""
    decided: dict[str, list[datetime]] = {}
    for note in record.timeline:
        if note.step.startswith("check "):
            decided.setdefault(note.step.removeprefix("check "), []).append(note.at)
    end = record.timing.ended_at or (record.timeline[-1].at if record.timeline else record.timing.started_at)
    events = []
    for check in current.checks:  # a check decided twice (an invariant broken twice) takes its notes in turn
        outcome = "passed" if check.passed else "not observable" if check.unobservable else "FAILED"
        moments = decided.get(check.id)
        at = moments.pop(0) if moments else None
        where = "" if at else f" (decided in {current.source}, placed at the end)"
        events.append(
            Event(
                lane=Lane.CHECK,
                at=at or end,
                clock=HARNESS_CLOCK,
                title=f"{check.id}: {outcome}",
                detail=check.detail + where,
                problem=check.failed,
                check_id=check.id,
            )
        )
    return events


def api_calls(folder: Path) -> list[Event]:
    """Each request the harness made of the product's API, answered or not (no answer is a problem)."""
    events: list[Event] = []
    append = events.append
    titles: dict[tuple[str, str, int | None], str] = {}  # a wait polls one path again and again
    lane, clock = Lane.API, HARNESS_CLOCK
    for call in valid_lines(folder / API_CALLS, ApiCall):
        status = call.get("status")
        key = (call["method"], call["path"], status)
        title = titles.get(key)
        if title is None:
            title = titles[key] = f"{key[0]} {key[1]} → {'no answer' if status is None else status}"
        problem = status is None or status >= 400
        append(
            new_event(
                (
                    lane,
                    call["at"],
                    clock,
                    title,
                    call["seconds"],
                    call.get("error") or "",
                    problem,
                    None,
                    None,
                )
            )
        )
    return events


class _ShownTask(TypedDict):
    id: str
    status: str


class _ShownRun(TypedDict):
    id: str
    task_id: str
    status: str


class _ShownMessage(TypedDict):
    id: str
    task_id: str
    body: str
    consumed_by_run_id: NotRequired[str | None]


class _ShownDelivery(TypedDict):
    id: str
    task_id: str


class _ShownRecords(TypedDict):
    tasks: list[_ShownTask]
    runs: list[_ShownRun]
    messages: list[_ShownMessage]
    deliveries: NotRequired[list[_ShownDelivery]]


class ShownLook(TypedDict):
    """What the record lane shows of one of the watch's looks (:class:`WatchSample`): when it was taken and, of its
    records, the fields the lane plots, every field they cannot be read without (each required one of the full
    model, with its type) and nothing else.

    The timeline's own reader, lighter than the full model the judging code validates (a look holds whole
    records, and a report reads every attempt's looks): a line the full model rejects for its JSON, its time or
    a required field of what the lane shows is rejected here too, the same way (see :func:`valid_lines`); the
    fields left out (a run's runner identity, the badge, the served bytes) are the judging code's to check.
    """

    at: datetime
    records: NotRequired[_ShownRecords | None]


class TaskSample(NamedTuple):
    """One task at one look, as the record lane plots it: its status, its runs', its messages stored and read."""

    id: str
    status: str
    runs: tuple[tuple[str, str], ...]  # (run id, status)
    messages: int
    messages_read: int
    deliveries: int


def tasks_at(records: _ShownRecords) -> list[TaskSample]:
    """Each task of a look's records."""
    runs, messages, deliveries = records["runs"], records["messages"], records.get("deliveries", [])
    tasks = []
    for task in records["tasks"]:
        task_id = task["id"]
        stored = [message for message in messages if message["task_id"] == task_id]
        tasks.append(
            TaskSample(
                task_id,
                task["status"],
                tuple([(run["id"], run["status"]) for run in runs if run["task_id"] == task_id]),
                len(stored),
                len([message for message in stored if message.get("consumed_by_run_id")]),
                len([delivery for delivery in deliveries if delivery["task_id"] == task_id]),
            )
        )
    return tasks


def _task_changes(before: TaskSample | None, now: TaskSample) -> list[tuple[str, bool]]:
    """What changed in one task between two samples, each with whether the new state breaks a rule."""
    name = f"task {now.id}"
    changes = []
    active = [run_id for run_id, status in now.runs if status in ACTIVE_RUN]
    if before is None:
        changes.append((f"{name} seen ({now.status})", False))
    elif before.status != now.status:
        changes.append((f"{name}: {before.status} → {now.status}", False))
    runs_before = dict(before.runs) if before else {}
    for run_id, status in now.runs:
        if run_id not in runs_before:
            changes.append((f"run {run_id} started ({status}) on {name}", False))
        elif runs_before[run_id] != status:
            changes.append((f"run {run_id}: {runs_before[run_id]} → {status}", False))
    if now.messages > (before.messages if before else 0):
        changes.append((f"{name}: message stored ({now.messages} in all)", False))
    if now.messages_read > (before.messages_read if before else 0):
        changes.append((f"{name}: message read ({now.messages_read} of {now.messages})", False))
    if now.deliveries > (before.deliveries if before else 0):
        changes.append((f"{name}: delivery stored ({now.deliveries} in all)", False))
    was_broken = before is not None and before.status == "done" and any(st in ACTIVE_RUN for _, st in before.runs)
    if now.status == "done" and active and not was_broken:
        changes.append((f"{name} reads done while run {active[0]} is still active", True))
    return changes


def record_samples(folder: Path) -> tuple[list[Event], int]:
    """The product's records as they changed between the samples the invariant watch took (and how many
    samples there were): one event per change, a state that breaks a rule marked as a problem."""
    events: list[Event] = []
    known: dict[str, TaskSample] = {}
    count = 0
    seen: _ShownRecords | None = None
    for look in valid_lines(folder / RECORD_SAMPLES, ShownLook):
        count += 1
        records = look.get("records")
        if records is None or records == seen:
            continue  # an unreadable look, or one that read what the last readable one did, changes nothing
        seen = records
        at = look["at"]
        for task in tasks_at(records):
            for title, problem in _task_changes(known.get(task.id), task):
                events.append(new_event((Lane.RECORD, at, RECORD_CLOCK, title, None, "", problem, None, None)))
            known[task.id] = task
    return events, count


def _logged_calls(text: str) -> list[Any]:
    """The metering proxy's call reports in a run log: every one in one parse when all are JSON, else each that is."""
    payloads = [
        payload for _, found, payload in (line.partition(CALL_LOG_PREFIX) for line in text.splitlines()) if found
    ]
    try:
        calls = json.loads(f"[{','.join(payloads)}]")
        if len(calls) == len(payloads):  # else a line held more than one value, which no one parse may accept
            return list(calls)
    except ValueError:
        pass
    calls = []
    for payload in payloads:
        try:
            calls.append(json.loads(payload))
        except ValueError:
            continue
    return calls


def model_calls(folder: Path) -> list[Event]:
    """Each completed model call as the run's metering proxy logged it: model, tokens, cost, latency."""
    events: list[Event] = []
    logs = folder / "logs"
    for name in (
        sorted(entry.name for entry in os.scandir(logs) if entry.name.endswith(".log")) if logs.is_dir() else []
    ):
        clock = f"runner (metering proxy, {name})"
        for call in _logged_calls((logs / name).read_text(errors="replace")):
            try:
                at = datetime.fromisoformat(call["started_at"])
            except (ValueError, KeyError, TypeError):
                continue
            usage = call.get("usage") or {}
            tokens = f"{usage.get('input_tokens', 0)} in ({usage.get('cached_input_tokens', 0)} cached), {usage.get('output_tokens', 0)} out"
            cost = f"{call.get('cost_cents', 0):.3f} ¢{' simulated' if call.get('simulated') else ''}"
            refused = call.get("refused")
            status = call.get("status", 0)
            title = f"{call.get('model') or '?'} → {status}"
            detail = f"{tokens}; {cost}" + (f"; refused: {refused}" if refused else "")
            problem = bool(refused) or not (200 <= int(status) < 300)
            events.append(new_event((Lane.MODEL, at, clock, title, call.get("latency_s"), detail, problem, None, None)))
    return events


def trace(summary: TraceSummary | None) -> list[Event]:
    if summary is None:
        return []
    return [
        Event(
            lane=Lane.TRACE,
            at=item.at,
            seconds=item.seconds,
            clock="browser (Playwright trace)",
            title=f"{item.kind}: {item.title}" if item.kind != "action" else item.title,
            detail=item.detail,
            problem=item.problem,
        )
        for item in summary.items
    ]
