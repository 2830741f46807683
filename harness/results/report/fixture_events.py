"""Timeline events for fixture packages, kept the way the harness keeps them, for the benchmark and the docs.

API calls and record samples go in as JSON lines beside the package and
model calls as the metering proxy's lines in a run log, so every timeline
lane is read by the same code as a real attempt's.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

from harness.agents.meter import CALL_LOG_PREFIX
from harness.checks.lifecycle import MessageFacts, RunFacts, TaskFacts
from harness.checks.watch_samples import SampledRecords, WatchSample
from harness.evidence.moments import API_CALLS, RECORD_SAMPLES, ApiCall, JsonLines


def add_events(folder: Path, events: int, start: datetime, span_s: float = 40.0) -> None:
    """About ``events`` events spread over ``span_s`` seconds from ``start``: nine in ten API calls (one in 50
    answered 500, each answered in its own time), the rest the invariant watch's looks, whose run alternates between
    running and ended."""
    calls, samples = JsonLines(folder / API_CALLS), JsonLines(folder / RECORD_SAMPLES, exclude_none=False)
    api_count, sample_count = events * 9 // 10, max(events // 10, 1)
    for number in range(api_count):
        at = start + timedelta(seconds=span_s * number / api_count)
        status = 500 if number % 50 == 49 else 200
        seconds = 0.002 + (number * 7919 % 23_000) / 1_000_000  # 2 to 25 ms, as a product on loopback answers
        calls.add_call(ApiCall(at=at, method="GET", path=f"/api/tasks/{number % 7}", status=status, seconds=seconds))
    for number in range(sample_count):
        run = RunFacts(id=str(number // 2 + 1), task_id="1", status="running" if number % 2 == 0 else "succeeded")
        messages = [MessageFacts(id=str(n), task_id="1", body="more tests") for n in range(number // 4)]
        records = SampledRecords(tasks=[TaskFacts(id="1", status="in_progress")], runs=[run], messages=messages)
        at = start + timedelta(seconds=span_s * number / sample_count)
        samples.add(WatchSample(at=at, sources=["product API: every task's record"], records=records))


def add_model_calls(folder: Path, calls: int, start: datetime, span_s: float = 40.0) -> None:
    """``calls`` model calls in a run log, as the metering proxy writes them."""
    lines = []
    for number in range(calls):
        at = start + timedelta(seconds=span_s * number / calls)
        report = {
            "model": "gpt-5-codex",
            "status": 200,
            "usage": {"input_tokens": 12_000 + number, "cached_input_tokens": 9_000, "output_tokens": 300},
            "cost_cents": 0.58,
            "simulated": True,
            "refused": None,
            "started_at": at.isoformat(),
            "latency_s": 1.5,
        }
        lines.append(f"{at:%Y-%m-%d %H:%M:%S},000 1 agents.meter INFO {CALL_LOG_PREFIX}{json.dumps(report)}")
    (folder / "logs").mkdir(exist_ok=True)
    (folder / "logs" / "run-1.log").write_text("\n".join(lines) + "\n")
