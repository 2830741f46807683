"""The terminal of `harness run`: what attempts report, how the board prints it, and why a failure failed."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from harness.cli import main
from harness.core.records import AttemptRecord
from harness.core.verdicts import Verdict
from harness.results.explain import explain
from harness.results.report.fixtures import SCRIPTED_CELL, write_attempt, write_broken
from harness.running.board import CLEAR_BELOW, HEARTBEAT_S, ProgressBoard
from harness.running.progress import PROGRESS_ENV, AttemptProgress, ProgressReader


def _record(folder: Path) -> AttemptRecord:
    return AttemptRecord.model_validate_json((folder / "attempt.json").read_text())


def _progress(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "progress"
    folder.mkdir()
    monkeypatch.setenv(PROGRESS_ENV, str(folder))
    return folder


def test_an_attempt_reports_its_start_its_steps_once_and_its_ending(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _progress(tmp_path, monkeypatch)
    package = write_attempt(tmp_path / "results", verdict=Verdict.FAILED, reason="failed checks: oracle.build")
    progress = AttemptProgress(SCRIPTED_CELL, "1-aaaa")
    for step in ("product start", "product start", "invariants", "download build"):
        progress.step(step)
    progress.ended(_record(package), package, "failed")
    events = ProgressReader(folder).read()
    assert [event.kind for event in events] == ["start", "step", "step", "end"]
    assert [event.step for event in events if event.kind == "step"] == ["product start", "download build"]
    end = events[-1]
    assert end.label == "failed" and end.why.startswith("oracle.build: graded")
    assert end.evidence == str(package / "downloads/build.zip")  # the failed check's own evidence


def test_without_a_board_an_attempt_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PROGRESS_ENV, raising=False)
    progress = AttemptProgress(SCRIPTED_CELL, "1-aaaa")
    progress.step("product start")
    assert progress.path is None and list(tmp_path.iterdir()) == []


def test_the_reader_leaves_a_line_being_written_for_the_next_read(tmp_path: Path) -> None:
    events = tmp_path / "1.jsonl"
    whole = '{"kind":"start","cell":"c","attempt":"1","at":1.0}\n'
    events.write_text(whole + '{"kind":"step","cell":"c"')
    reader = ProgressReader(tmp_path)
    assert [event.kind for event in reader.read()] == ["start"]
    with events.open("a") as out:
        out.write(',"attempt":"1","at":2.0,"step":"oracle"}\n')
    assert [event.step for event in reader.read()] == ["oracle"]


def _board(folder: Path, live: bool) -> tuple[ProgressBoard, io.StringIO]:
    out = io.StringIO()
    return ProgressBoard(folder, total=2, out=out, live=live, pytest_output=None), out


def test_piped_the_board_prints_plain_lines_and_explains_a_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _progress(tmp_path, monkeypatch)
    board, out = _board(folder, live=False)
    package = write_attempt(tmp_path / "results", verdict=Verdict.FAILED, reason="failed checks: oracle.build")
    progress = AttemptProgress(SCRIPTED_CELL, "1-aaaa")
    board._absorb(board.reader.read())
    progress.step("oracle")
    board.running[(SCRIPTED_CELL, "1-aaaa")].heard -= HEARTBEAT_S  # as if it had been silent that long
    board._absorb(board.reader.read())
    board._heartbeat()
    progress.ended(_record(package), package, "failed")
    board.stop()
    lines = out.getvalue().splitlines()
    assert lines[0] == f"started {SCRIPTED_CELL}"
    assert lines[1].startswith(f"  still running {SCRIPTED_CELL} (") and lines[1].endswith("): oracle")
    assert lines[2] == f"[1/2] failed                {SCRIPTED_CELL} (42.0 s)"
    assert lines[3].startswith("      oracle.build: graded") and "(+2 more failed check(s))" in lines[3]
    assert lines[4] == f"      evidence: {package / 'downloads/build.zip'}"
    assert "\x1b" not in out.getvalue()


def test_on_a_terminal_running_cells_are_redrawn_in_place_and_erased_when_they_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _progress(tmp_path, monkeypatch)
    monkeypatch.setenv("COLUMNS", "200")  # the lines are cut to the terminal's width
    board, out = _board(folder, live=True)
    package = write_attempt(tmp_path / "results")
    progress = AttemptProgress(SCRIPTED_CELL, "1-aaaa")
    progress.step("product start")
    board._absorb(board.reader.read())
    board._draw()
    assert out.getvalue().endswith(f"{SCRIPTED_CELL}  product start\n") and "running" in out.getvalue()
    progress.ended(_record(package), package, "passed")
    board.stop()
    rest = out.getvalue().split(f"{SCRIPTED_CELL}  product start\n", 1)[1]
    assert (
        rest == f"\x1b[1F{CLEAR_BELOW}[1/2] passed                {SCRIPTED_CELL} (42.0 s)\n      evidence: {package}\n"
    )


def test_an_infrastructure_failure_points_at_the_harness_error_log(tmp_path: Path) -> None:
    package = write_attempt(tmp_path, verdict=Verdict.INFRASTRUCTURE_FAILED, reason="BrowserGone: " + "x" * 300)
    (package / "logs/harness-error.txt").write_text("Traceback ...\n")
    explanation = explain(_record(package), package)
    assert explanation.evidence == package / "logs/harness-error.txt"
    assert (
        explanation.why.startswith("BrowserGone: x") and explanation.why.endswith("…") and len(explanation.why) == 160
    )


def test_summary_prints_the_latest_campaign_as_a_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_attempt(tmp_path, "c1", SCRIPTED_CELL, "1-a")
    write_attempt(tmp_path, "c2", SCRIPTED_CELL, "1-a", Verdict.FAILED, cost_cents=250)
    write_attempt(tmp_path, "c2", SCRIPTED_CELL, "2-a", extra={"product_defect": "download-other-bytes"})
    write_broken(tmp_path, "c2", SCRIPTED_CELL, "3-a", None)
    assert main(["summary", "--results", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "campaign c2: 3 attempt(s)"
    assert lines[1].split() == ["cell", "verdict", "failed", "checks", "time", "cost"]
    failed = next(line for line in lines[2:] if " failed " in line)
    assert "oracle.build, oracle.revision, lifecycle.tasks-done" in failed and failed.endswith("42.0 s    2.50 $")
    assert any("passed (diagnostic)" in line for line in lines)
    assert any("broken" in line and "attempt.json is missing" in line for line in lines)
    assert "verdicts: 1 broken, 1 failed, 1 passed" in lines
    assert main(["summary", "c1", "--results", str(tmp_path)]) == 0
    assert capsys.readouterr().out.startswith("campaign c1: 1 attempt(s)")


def test_summary_refuses_an_unknown_campaign(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_attempt(tmp_path, "c1", SCRIPTED_CELL, "1-a")
    assert main(["summary", "nope", "--results", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip() == "harness: no campaign nope; the latest: c1"
