"""The attempt's network log, written into its Playwright trace: actions, console and network in one trace.zip.

Playwright records a trace's network only beside its DOM snapshots (a snapshot
of the page before and after every action, the larger part of what tracing
costs a cell: docs/measurements.md). The attempt traces without them, and the
browser context records the network itself, as a HAR without bodies
(Playwright's own recorder); this module writes that HAR's entries into the
trace's network file in the shape Playwright writes there (``resource-snapshot``
events), so ``playwright show-trace`` and the reviewer's timeline read the
requests where they always have. What the trace then lacks is the DOM at each
action: the journey's screenshots show the screen at each decision point, on
failure and at the end.
"""

from __future__ import annotations

import json
import zipfile
from datetime import datetime
from pathlib import Path
from typing import Any

from harness.evidence.trace_events import ACTIONS, context_options, trace_clock, trace_events

NETWORK_MEMBER = "trace.network"
"""The member Playwright names the network file of a trace started without a name."""


def _clock(archive: zipfile.ZipFile) -> tuple[float, float] | None:
    """The trace's clock at its start, which places a request on the trace's own time line."""
    options = context_options(trace_events(archive, ACTIONS))
    return trace_clock(options) if options else None


def _event(entry: dict[str, Any], clock: tuple[float, float] | None) -> dict[str, Any]:
    snapshot = dict(entry)
    if clock and "_monotonicTime" not in snapshot:
        try:
            started = datetime.fromisoformat(str(entry["startedDateTime"]).replace("Z", "+00:00"))
            snapshot["_monotonicTime"] = clock[1] + started.timestamp() * 1000 - clock[0]
        except (KeyError, ValueError):
            pass
    return {"type": "resource-snapshot", "snapshot": snapshot}


def merge_network(trace: Path, har: Path) -> int | None:
    """Write ``har``'s entries into ``trace``'s network file and remove ``har``: the count of entries written.

    None when either cannot be read (the browser went away while writing them): the trace stays as Playwright
    wrote it and the HAR stays beside it, so evidence is never lost to the merge, and the attempt goes on.
    The trace is rewritten whole (it is small without DOM snapshots) through a file beside it.
    """
    partial = trace.with_name(trace.name + ".partial")
    try:
        entries = json.loads(har.read_text()).get("log", {}).get("entries", [])
        with zipfile.ZipFile(trace) as source, zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as target:
            clock = _clock(source)
            network = b"".join(json.dumps(_event(entry, clock)).encode() + b"\n" for entry in entries)
            written = source.read(NETWORK_MEMBER) if NETWORK_MEMBER in source.namelist() else b""
            for item in source.infolist():
                if item.filename != NETWORK_MEMBER:
                    target.writestr(item, source.read(item.filename))
            target.writestr(NETWORK_MEMBER, written + network)
        partial.replace(trace)
    except (OSError, ValueError, AttributeError, zipfile.BadZipFile):
        partial.unlink(missing_ok=True)
        return None
    har.unlink()
    return len(entries)
