"""The published attempt.json schema and the campaign summary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main
from harness.core.records import ATTEMPT_SCHEMA_VERSION
from harness.core.schema import COMMITTED_SCHEMA, schema_text
from harness.core.verdicts import Verdict
from harness.results.packages import load_attempts
from harness.results.report.fixtures import LIVE_CELL, SCRIPTED_CELL, write_attempt, write_broken
from harness.results.summary import summarize


def test_committed_schema_matches_the_model() -> None:
    assert COMMITTED_SCHEMA.read_text() == schema_text(), (
        "regenerate: harness schema --out harness/core/schemas/attempt.schema.json"
    )
    schema = json.loads(schema_text())
    assert schema["$id"].endswith(f":v{ATTEMPT_SCHEMA_VERSION}")
    assert {"verdict", "provenance", "checks", "timing"} <= set(schema["properties"])


def test_schema_command_prints_it(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["schema"]) == 0
    assert capsys.readouterr().out == schema_text()
    assert main(["schema", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "attempt.schema.json").read_text() == schema_text()


def test_summary_keeps_modes_apart_and_counts_cost_and_durations(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_attempt(tmp_path, "c1", SCRIPTED_CELL, "1-a")
    write_attempt(tmp_path, "c1", LIVE_CELL, "1-b", cost_cents=120)
    write_attempt(tmp_path, "c1", LIVE_CELL, "2-b", Verdict.FAILED, cost_cents=80, extra={"diagnostic": True})
    write_broken(tmp_path, "c1", SCRIPTED_CELL, "2-a", None)
    summary = summarize(load_attempts([tmp_path]))
    (campaign,) = summary.campaigns
    assert campaign.by_mode["scripted"]["passed"] == 1 and campaign.by_mode["scripted"]["broken"] == 1
    assert campaign.by_mode["live"]["passed"] == 1 and campaign.by_mode["live"]["failed"] == 1
    assert campaign.cost_cents == 200 and campaign.diagnostics == 1
    assert campaign.wall.total_s == 126.0 and campaign.wall.median_s == 42.0
    assert main(["summary", "--results", str(tmp_path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["overall"]["attempts"] == 4
