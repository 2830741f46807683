"""`python -m calibration` prints its table, records the outcome for the harness digest, and says no to typos."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from calibration.__main__ import main
from calibration.runner import Row, where_the_time_went
from harness.evidence.provenance import harness_digest
from tests.needs import PLAYS_CELLS, marked
from tests.stories.harness_runs import processes_naming, run_temp, stopped_mid_run


def test_a_suite_prints_its_table_and_records_the_outcome(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lifecycle", "--results", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "deciding check" in out and "WRONG" not in out
    assert "machine CPU: " in out
    record = json.loads((tmp_path / "calibration" / f"{harness_digest()}.json").read_text())
    assert record["passed"] is True and record["complete"] is False


def test_an_unknown_suite_is_refused_with_the_known_ones(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["oracel"])
    assert exit_.value.code == 2
    assert "unknown suite(s) oracel; known: oracle" in capsys.readouterr().err


def test_python_m_calibration_ends_as_its_main_does(tmp_path: Path) -> None:
    """The refusals here call ``main`` in this process; the interpreter ends with its status, and no traceback."""
    done = subprocess.run(
        [sys.executable, "-m", "calibration", "oracel", "--results", str(tmp_path / "results")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr, done.stderr
    assert "unknown suite(s) oracel; known: oracle" in done.stderr.splitlines()[-1]
    assert not any(tmp_path.iterdir())


def test_a_results_path_under_a_file_is_refused_before_any_suite_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a-file").write_text("keep me\n")
    with pytest.raises(SystemExit) as exit_:
        main(["lifecycle", "--results", str(tmp_path / "a-file" / "results")])
    assert exit_.value.code == 2
    captured = capsys.readouterr()
    assert "--results" in captured.err and "which is a file" in captured.err
    assert "deciding check" not in captured.out and (tmp_path / "a-file").read_text() == "keep me\n"


def test_the_slowest_story_cells_are_named_with_their_time() -> None:
    def row(name: str, seconds: float) -> Row:
        return Row(
            suite="s",
            delivery=name,
            mode="-",
            expected="pass",
            got="pass",
            deciding="-",
            detail="",
            ok=True,
            seconds=seconds,
        )

    text = where_the_time_went(
        [row("graded-zip", 0.0), row("fast", 2.0), row("slow", 30.5), row("mid", 7.25)], slowest=2
    )
    assert text.splitlines() == [
        "story cells: 3, 40 s of cell time; the slowest:",
        "    30.5 s  slow",
        "     7.2 s  mid",
    ]
    assert where_the_time_went([row("graded-zip", 0.0)]) == ""


@marked(*PLAYS_CELLS)
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "kill"])
def test_calibration_told_to_stop_stops_its_cells_and_records_nothing(tmp_path: Path, sig: signal.Signals) -> None:
    """Ctrl-C once printed a traceback and then played every case left (two minutes more); `kill` left a cell's
    product to its worker's orphan check. Now the cells being played end as interrupted and no new one starts.

    Two cells at once, not the default five: every worker is told to stop, and the cases still queued behind
    them are the ones that must not start."""
    temp = run_temp(tmp_path)  # the products' data folders are made here: how their processes are recognised
    command = [sys.executable, "-m", "calibration", "stories", "--results", str(tmp_path / "results")]
    command += ["--max-parallel", "2"]
    done = stopped_mid_run(command, temp, "--workspace", sig)  # a runner: a cell is being played
    stderr = done.stderr
    assert done.returncode == 130, stderr
    assert (
        stderr.strip().splitlines()[-1]
        == f"calibration: interrupted ({'Ctrl-C' if sig is signal.SIGINT else 'SIGTERM'}); nothing recorded"
    )
    assert "Traceback" not in stderr and not (tmp_path / "results" / "calibration").exists()
    assert processes_naming(temp) == []
