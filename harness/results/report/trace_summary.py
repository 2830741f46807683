"""What a Playwright trace.zip says, read when the report is built: its actions, console errors and failed requests.

The trace viewer cannot open from a page on file:// (it needs a service
worker over http(s)), so the reviewer's timeline reads the trace itself. The
format is Playwright's own and versioned: a version this reader was not written
for is summarised as far as the known event shapes go, and says so, and a
trace it cannot read at all yields a summary with the reason instead of events.
"""

from __future__ import annotations

import hashlib
import os
import zipfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from harness.evidence.trace_events import ACTIONS, NETWORK, context_options, trace_clock, trace_events

KNOWN_VERSIONS = frozenset(range(6, 11))
"""Trace format versions whose event shapes (context-options, before/after, console, event, resource-snapshot)
this reader follows; Playwright's own viewer upgrades older ones step by step through the same shapes."""


class TraceItem(BaseModel):
    kind: str = Field(description="action, console error, page error or failed request")
    at: datetime
    seconds: float | None = None
    title: str
    detail: str = ""
    problem: bool = False


class TraceSummary(BaseModel):
    version: int | None = None
    playwright: str | None = None
    known: bool = False
    note: str = ""
    items: list[TraceItem] = Field(default_factory=list)


def _action_title(event: dict[str, Any]) -> str:
    title = event.get("title") or event.get("apiName") or f"{event.get('class', '?')}.{event.get('method', '?')}"
    params = event.get("params") or {}
    target = params.get("selector") or params.get("url") or ""
    return f"{title} {target}".strip()


def summarize_trace(path: Path) -> TraceSummary:
    """Every action (with its duration and error), console error, page error and failed request in the trace."""
    try:
        with zipfile.ZipFile(path) as archive:
            trace, network = list(trace_events(archive, ACTIONS)), list(trace_events(archive, NETWORK))
    except (OSError, zipfile.BadZipFile, ValueError) as error:
        return TraceSummary(note=f"trace.zip is unreadable: {error}")
    options = context_options(trace)
    if options is None:
        return TraceSummary(note="trace.zip holds no context-options event: not a trace this reader knows")
    version = options.get("version")
    summary = TraceSummary(
        version=version if isinstance(version, int) else None,
        playwright=options.get("playwrightVersion"),
        known=version in KNOWN_VERSIONS,
    )
    if not summary.known:
        summary.note = (
            f"trace format version {version} is not one this report reads ({min(KNOWN_VERSIONS)}-{max(KNOWN_VERSIONS)});"
            " what follows is read with the known shapes and may be incomplete: open the trace with show-trace"
        )
    clock = trace_clock(options)
    if clock is None:
        summary.note = "the trace gives no wall time to place its events: open it with show-trace"
        return summary
    wall, mono = clock

    def when(ms: Any) -> datetime:
        return datetime.fromtimestamp((wall + float(ms) - mono) / 1000, UTC)

    summary.items = _actions(trace, when) + _console(trace, when) + _failed_requests(network)
    summary.items.sort(key=lambda item: item.at)
    return summary


def _actions(trace: list[dict[str, Any]], when: Any) -> list[TraceItem]:
    ended = {e.get("callId"): e for e in trace if e.get("type") == "after"}
    items = []
    for event in (e for e in trace if e.get("type") == "before" and isinstance(e.get("startTime"), (int, float))):
        after = ended.get(event.get("callId"), {})
        end = after.get("endTime")
        error = (after.get("error") or {}).get("message") if isinstance(after.get("error"), dict) else None
        items.append(
            TraceItem(
                kind="action",
                at=when(event["startTime"]),
                seconds=round((end - event["startTime"]) / 1000, 4) if isinstance(end, (int, float)) else None,
                title=_action_title(event),
                detail=error or "",
                problem=bool(error),
            )
        )
    return items


def _console(trace: list[dict[str, Any]], when: Any) -> list[TraceItem]:
    items = []
    for event in trace:
        time = event.get("time")
        if not isinstance(time, (int, float)):
            continue
        if event.get("type") == "console" and event.get("messageType") == "error":
            where = (event.get("location") or {}).get("url", "")
            items.append(
                TraceItem(
                    kind="console error", at=when(time), title=str(event.get("text", "")), detail=where, problem=True
                )
            )
        elif event.get("type") == "event" and event.get("method") == "pageError":
            error = (event.get("params") or {}).get("error") or {}
            message = (error.get("error") or error).get("message", "") if isinstance(error, dict) else str(error)
            items.append(TraceItem(kind="page error", at=when(time), title=str(message), problem=True))
    return items


def _failed_requests(network: list[dict[str, Any]]) -> list[TraceItem]:
    items = []
    for event in (e.get("snapshot") or {} for e in network if e.get("type") == "resource-snapshot"):
        response, request = event.get("response") or {}, event.get("request") or {}
        status, failure = response.get("status"), event.get("_failureText")
        if not (failure or (isinstance(status, int) and (status >= 400 or status <= 0))):
            continue
        try:
            at = datetime.fromisoformat(str(event.get("startedDateTime")).replace("Z", "+00:00"))
        except ValueError:
            continue
        time = event.get("time")
        items.append(
            TraceItem(
                kind="failed request",
                at=at,
                seconds=round(time / 1000, 4) if isinstance(time, (int, float)) and time >= 0 else None,
                title=f"{request.get('method', '?')} {request.get('url', '?')}",
                detail=failure or f"status {status}",
                problem=True,
            )
        )
    return items


def cached_summary(path: Path, cache: Path | None) -> TraceSummary:
    """``summarize_trace``, kept in ``cache`` under the trace's size and modification time: a trace is written once
    by its attempt, and reading one is most of what a real attempt's timeline costs to build."""
    if cache is None:
        return summarize_trace(path)
    stat = path.stat()
    # The absolute path, not the resolved one: resolving asks the file system about every folder on the way, which
    # cost more than reading the kept summary (a trace reached through a link is kept once more, that is all).
    key = hashlib.sha256(f"{os.path.abspath(path)}\n{stat.st_size}\n{stat.st_mtime_ns}".encode()).hexdigest()[:24]
    kept = cache / f"{key}.json"
    try:
        return TraceSummary.model_validate_json(kept.read_bytes())
    except (OSError, ValueError):
        summary = summarize_trace(path)
        cache.mkdir(parents=True, exist_ok=True)
        kept.write_text(summary.model_dump_json())
        return summary
