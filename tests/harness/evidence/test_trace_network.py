"""The context's network log goes into the trace, where show-trace and the reviewer's timeline read requests."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from harness.evidence.trace_network import NETWORK_MEMBER, merge_network
from harness.results.report.trace_summary import summarize_trace

WALL_MS, MONO_MS = 1_796_600_000_000.0, 5_000.0


def _trace(path: Path) -> Path:
    """A trace as Playwright writes one without DOM snapshots: its events, an empty network file, its stacks."""
    options = {"type": "context-options", "version": 8, "wallTime": WALL_MS, "monotonicTime": MONO_MS}
    action = {"type": "before", "callId": "call@1", "startTime": MONO_MS + 10, "title": "Click", "params": {}}
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("trace.trace", "\n".join(json.dumps(event) for event in (options, action)) + "\n")
        archive.writestr(NETWORK_MEMBER, "")
        archive.writestr("trace.stacks", "{}")
    return path


def _entry(url: str, status: int, failure: str | None = None, at_ms: float = 1000) -> dict:
    started = f"2026-12-06T{20 + int(at_ms // 3_600_000):02d}:13:20.{int(at_ms % 1000):03d}Z"
    entry = {
        "startedDateTime": started,
        "time": 12.5,
        "request": {"method": "GET", "url": url, "headers": []},
        "response": {"status": status, "headers": []},
    }
    return entry | ({"_failureText": failure} if failure else {})


def test_the_network_log_is_written_into_the_trace_and_its_failed_requests_reach_the_timeline(tmp_path: Path) -> None:
    trace = _trace(tmp_path / "trace.zip")
    har = tmp_path / "network.har"
    entries = [
        _entry("http://127.0.0.1:1/tasks/1", 200),
        _entry("http://127.0.0.1:1/tasks/1/live", 500),
        _entry("http://127.0.0.1:1/gone", -1, "net::ERR_CONNECTION_REFUSED"),
    ]
    har.write_text(json.dumps({"log": {"version": "1.2", "entries": entries}}))

    assert merge_network(trace, har) == 3
    assert not har.exists()
    with zipfile.ZipFile(trace) as archive:
        assert sorted(archive.namelist()) == sorted(["trace.trace", NETWORK_MEMBER, "trace.stacks"])
        network = [json.loads(line) for line in archive.read(NETWORK_MEMBER).splitlines()]
    assert [event["type"] for event in network] == ["resource-snapshot"] * 3
    assert [event["snapshot"]["request"]["url"] for event in network] == [e["request"]["url"] for e in entries]
    assert all(isinstance(event["snapshot"]["_monotonicTime"], float) for event in network)
    failed = [item for item in summarize_trace(trace).items if item.kind == "failed request"]
    assert [(item.title, item.detail) for item in failed] == [
        ("GET http://127.0.0.1:1/tasks/1/live", "status 500"),
        ("GET http://127.0.0.1:1/gone", "net::ERR_CONNECTION_REFUSED"),
    ]
    assert [item.kind for item in summarize_trace(trace).items if item.kind == "action"] == ["action"]


def test_a_network_log_that_cannot_be_read_leaves_the_trace_as_written_and_the_log_in_place(tmp_path: Path) -> None:
    trace = _trace(tmp_path / "trace.zip")
    written = trace.read_bytes()
    har = tmp_path / "network.har"
    har.write_text('{"log": {"entries": [')  # the browser went away while writing it
    assert merge_network(trace, har) is None
    assert trace.read_bytes() == written and har.is_file()
    assert not list(tmp_path.glob("*.partial"))
