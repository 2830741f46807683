"""The model lane reads the metering proxy's call reports from run logs, dropping what is not one."""

from __future__ import annotations

import json
from pathlib import Path

from harness.agents.meter import CALL_LOG_PREFIX
from harness.results.report.timeline_lanes import model_calls


def _line(report: object) -> str:
    return f"2026-11-01 09:00:00,000 1 agents.meter INFO {CALL_LOG_PREFIX}{json.dumps(report)}"


def _call(model: str, **more: object) -> dict[str, object]:
    return {"model": model, "status": 200, "started_at": "2026-11-01T09:00:01+00:00", "latency_s": 1.5} | more


def _titles(folder: Path, *lines: str) -> list[str]:
    (folder / "logs").mkdir()
    (folder / "logs" / "run-1.log").write_text("\n".join(lines) + "\n")
    return [event.title for event in model_calls(folder)]


def test_every_report_is_a_model_call_and_other_lines_are_not(tmp_path: Path) -> None:
    assert _titles(tmp_path, "runner started", _line(_call("a")), _line(_call("b", status=429))) == [
        "a → 200",
        "b → 429",
    ]


def test_a_torn_or_unplaceable_report_is_dropped_and_the_others_kept(tmp_path: Path) -> None:
    torn = _line(_call("torn"))[:-9]
    two = f"{CALL_LOG_PREFIX}{json.dumps(_call('x'))}, {json.dumps(_call('y'))}"  # two values: not one report
    untimed = _line({"model": "c", "status": 200})
    assert _titles(tmp_path, _line(_call("a")), torn, two, untimed, _line([1]), _line(_call("b"))) == [
        "a → 200",
        "b → 200",
    ]


def test_a_line_of_two_values_is_dropped_even_when_the_whole_log_parses(tmp_path: Path) -> None:
    two = f"{CALL_LOG_PREFIX}{json.dumps(_call('x'))}, {json.dumps(_call('y'))}"
    assert _titles(tmp_path, _line(_call("a")), two, _line(_call("b"))) == ["a → 200", "b → 200"]
