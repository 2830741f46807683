"""Each lane of the reviewer's timeline, read from one attempt package and nothing else.

Every reader takes the package folder (and the record) and returns events
with the clock they were read on; a file an older harness did not write
yields no events, never an error, so an old package still shows its lanes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from pathlib import Path

from harness.agents.meter import CALL_LOG_PREFIX
from harness.checks.watch_samples import WatchSample
from harness.core.records import AttemptRecord, TimelineEvent
from harness.evidence.moments import API_CALLS, ApiCall, valid_lines, watch_samples
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
ACTIVE_RUN = frozenset({"queued", "running", "starting"})


@dataclass(slots=True)
class Event:
    """One row's facts, never changed once made. A dataclass, not a model, and not frozen (a frozen one's every
    field is set through ``object.__setattr__``): a report makes hundreds of thousands of them from values already
    validated where they were read."""

    lane: Lane
    at: datetime
    clock: str
    title: str
    seconds: float | None = None
    detail: str = ""
    problem: bool = False
    image: str | None = None  # a package-relative screenshot
    check_id: str | None = None


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
    events = []
    for call in valid_lines(folder / API_CALLS, ApiCall):
        status = call.get("status")
        events.append(
            Event(
                Lane.API,
                call["at"],
                HARNESS_CLOCK,
                f"{call['method']} {call['path']} → {'no answer' if status is None else status}",
                call["seconds"],
                call.get("error") or "",
                status is None or status >= 400,
            )
        )
    return events


@dataclass(frozen=True, slots=True)
class TaskSample:
    """One task at one look, as the record lane plots it: its status, its runs', its messages stored and read."""

    id: str
    status: str
    runs: tuple[tuple[str, str], ...]  # (run id, status)
    messages: int
    messages_read: int
    deliveries: int


def tasks_at(sample: WatchSample) -> list[TaskSample]:
    """Each task of a look the watch could read (none of one it could not)."""
    if sample.records is None:
        return []
    records = sample.records
    return [
        TaskSample(
            id=task.id,
            status=task.status,
            runs=tuple((run.id, run.status) for run in records.runs if run.task_id == task.id),
            messages=sum(1 for m in records.messages if m.task_id == task.id),
            messages_read=sum(1 for m in records.messages if m.task_id == task.id and m.consumed_by_run_id),
            deliveries=sum(1 for d in records.deliveries if d.task_id == task.id),
        )
        for task in records.tasks
    ]


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
    """The product's records as they changed between the samples the harness took at its waits (and how many
    samples there were): one event per change, a state that breaks a rule marked as a problem."""
    events: list[Event] = []
    known: dict[str, TaskSample] = {}
    count = 0
    for sample in watch_samples(folder):
        count += 1
        for task in tasks_at(sample):
            for title, problem in _task_changes(known.get(task.id), task):
                events.append(
                    Event(lane=Lane.RECORD, at=sample.at, clock="product, read at a wait", title=title, problem=problem)
                )
            known[task.id] = task
    return events, count


def model_calls(folder: Path) -> list[Event]:
    """Each completed model call as the run's metering proxy logged it: model, tokens, cost, latency."""
    events = []
    logs = folder / "logs"
    for log in sorted(logs.glob("*.log")) if logs.is_dir() else []:
        for line in log.read_text(errors="replace").splitlines():
            _, found, payload = line.partition(CALL_LOG_PREFIX)
            if not found:
                continue
            try:
                call = json.loads(payload)
                at = datetime.fromisoformat(call["started_at"])
            except (ValueError, KeyError, TypeError):
                continue
            usage = call.get("usage") or {}
            tokens = f"{usage.get('input_tokens', 0)} in ({usage.get('cached_input_tokens', 0)} cached), {usage.get('output_tokens', 0)} out"
            cost = f"{call.get('cost_cents', 0):.3f} ¢{' simulated' if call.get('simulated') else ''}"
            refused = call.get("refused")
            status = call.get("status", 0)
            events.append(
                Event(
                    lane=Lane.MODEL,
                    at=at,
                    seconds=call.get("latency_s"),
                    clock=f"runner (metering proxy, {log.name})",
                    title=f"{call.get('model') or '?'} → {status}",
                    detail=f"{tokens}; {cost}" + (f"; refused: {refused}" if refused else ""),
                    problem=bool(refused) or not (200 <= int(status) < 300),
                )
            )
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
