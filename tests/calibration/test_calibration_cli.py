"""`python -m calibration` prints its table, records the outcome for the harness digest, and says no to typos."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from calibration.__main__ import main
from harness.evidence.provenance import harness_digest


def test_a_suite_prints_its_table_and_records_the_outcome(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lifecycle", "--results", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "deciding check" in out and "WRONG" not in out
    record = json.loads((tmp_path / "calibration" / f"{harness_digest()}.json").read_text())
    assert record["passed"] is True and record["complete"] is False


def test_an_unknown_suite_is_refused_with_the_known_ones(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["oracel"])
    assert exit_.value.code == 2
    assert "unknown suite(s) oracel; known: oracle" in capsys.readouterr().err
