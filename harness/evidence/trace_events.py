"""The events of a Playwright trace.zip, and the clock that places them: one reader for every module that opens a trace.

A trace's members are JSON lines (``*.trace`` for actions and console,
``*.network`` for requests); a line that is not a JSON object is skipped, as
Playwright's own viewer skips it. The ``context-options`` event gives the
wall time and the monotonic time at the trace's start, which turn an event's
monotonic milliseconds into a moment.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator
from typing import Any

ACTIONS = ".trace"
"""The suffix of the members that hold actions, console messages and the context's options."""
NETWORK = ".network"
"""The suffix of the members that hold the requests (``resource-snapshot`` events)."""


def trace_events(archive: zipfile.ZipFile, suffix: str) -> Iterator[dict[str, Any]]:
    """Every JSON object in the members whose names end in ``suffix``, member by member in name order."""
    for name in sorted(n for n in archive.namelist() if n.endswith(suffix)):
        for line in archive.read(name).splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict):
                yield event


def context_options(events: Iterator[dict[str, Any]] | list[dict[str, Any]]) -> dict[str, Any] | None:
    """The trace's ``context-options`` event (its version, its clock), or None when it has none."""
    return next((event for event in events if event.get("type") == "context-options"), None)


def trace_clock(options: dict[str, Any]) -> tuple[float, float] | None:
    """The trace's wall time and monotonic time (ms) at its start, or None when the options do not give both."""
    try:
        return float(options["wallTime"]), float(options["monotonicTime"])
    except (KeyError, TypeError, ValueError):
        return None
