"""A wrong calibration row keeps the evidence it was judged on; a right row, and a run that was stopped, keep nothing.

Calibration once played every cell into a temporary folder and deleted it: a
row that went WRONG in CI left only its one-line detail, and its maintainer
had to play the case again to see what happened.
"""

from __future__ import annotations

import json
from pathlib import Path

from calibration.__main__ import _discard
from calibration.personas import PersonaCase, row_for, run_persona
from calibration.record import record_calibration
from calibration.runner import Row, kept, played_rows
from tests.needs import PLAYS_CELLS, marked


def _row(ok: bool) -> Row:
    return Row(
        suite="s",
        delivery="d",
        mode="-",
        expected="pass",
        got="pass" if ok else "fail",
        deciding="-",
        detail="x",
        ok=ok,
    )


def _played(folder: Path, name: str) -> Path:
    played = folder / name
    (played / "cell" / "1-a").mkdir(parents=True)
    (played / "cell" / "1-a" / "attempt.json").write_text("{}")
    return played


def test_a_wrong_row_moves_its_evidence_and_says_where(tmp_path: Path) -> None:
    played, keep = _played(tmp_path / "cells", "calibration-case"), tmp_path / "kept"
    row = kept(_row(ok=False), played, keep)
    assert row.evidence == str(keep / "calibration-case")
    assert (keep / "calibration-case" / "cell" / "1-a" / "attempt.json").is_file() and not played.exists()
    assert row.wrong_line().endswith(f": x (evidence: {keep / 'calibration-case'})")


def test_a_right_row_keeps_nothing(tmp_path: Path) -> None:
    played, keep = _played(tmp_path / "cells", "calibration-case"), tmp_path / "kept"
    assert kept(_row(ok=True), played, keep).evidence == ""
    assert not keep.exists() and played.exists()  # left to the suite's temporary folder
    assert kept(_row(ok=False), played, None).evidence == ""  # nowhere to keep it: a suite called on its own
    assert kept(_row(ok=False), tmp_path / "never-played", keep).evidence == ""


def test_a_stopped_run_discards_what_it_kept_and_only_the_folders_it_made(tmp_path: Path) -> None:
    results = tmp_path / "results"
    first = results / "calibration" / "evidence" / "20261203T120000Z"
    _played(first, "calibration-case")
    _discard(first)
    assert not (results / "calibration").exists() and results.exists()
    (results / "calibration").mkdir()
    (results / "calibration" / "earlier.json").write_text("{}")
    second = results / "calibration" / "evidence" / "20261203T130000Z"
    _played(second, "calibration-case")
    _discard(second)
    assert sorted(p.name for p in (results / "calibration").iterdir()) == ["earlier.json"]


@marked(*PLAYS_CELLS)
def test_a_real_wrong_row_keeps_its_attempt_and_the_record_names_it(tmp_path: Path) -> None:
    """The default persona passes; a case expecting it to fail is wrong, and its whole attempt is kept."""
    case = PersonaCase(case="build-revise", persona="default", expected_check="build.no-such-check")
    keep = tmp_path / "kept"
    (row,) = played_rows([case], run_persona, row_for, keep)
    assert not row.ok and row.got == "passed"
    attempts = list(Path(row.evidence).glob("*/*/attempt.json"))
    assert Path(row.evidence) == keep / case.campaign and len(attempts) == 1
    assert json.loads(attempts[0].read_text())["verdict"] == "passed"
    assert (attempts[0].parent / "trace.zip").is_file()
    record = json.loads(record_calibration([row], "digest", results=tmp_path / "results").read_text())
    assert record["wrong"] == [row.wrong_line()] and f"(evidence: {row.evidence})" in record["wrong"][0]
