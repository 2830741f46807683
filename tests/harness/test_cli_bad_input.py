"""Bad command lines get one line on stderr, exit 2, no traceback, and change nothing on disk."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import main
from harness.core import registry


def harness(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "harness.cli", *args], capture_output=True, text=True, cwd=cwd, timeout=60
    )


def listing(folder: Path) -> list[str]:
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*"))


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["report", "--results", "missing"], "no results folder missing"),
        (["summary", "--results", "missing"], "no results folder missing"),
        (["promote", "--suite", "everyday-workflows-scripted", "--results", "missing"], "no results folder missing"),
        (["report", "--results", "results", "--out", "a-file"], "--out a-file is a file, not a folder"),
        (["merge", "results", "--into", "a-file"], "--into a-file is a file, not a folder"),
        (["merge", "results", "--into", "a-file/x"], "--into a-file/x is under a-file, which is a file"),
        (["schema", "--out", "a-file/x"], "--out a-file/x is under a-file, which is a file"),
        (["run", "--id", "build-revise", "--results", "a-file"], "a-file is a file, not a folder"),
        (["run", "--id", "build-revise", "--results", "a-file/x"], "a-file/x is under a-file, which is a file"),
        (["run", "--id", "build-revise", "--junitxml", "results"], "results is a folder, not a file"),
        (["run", "--id", "build-revise", "--campaign", "../escaped"], "a campaign id is one name"),
        (["run", "--id", "build-revise", "--campaign", "a/b"], "a campaign id is one name"),
        (["run", "--id", "build-revise", "--pace", "inf"], "--pace 'inf': input should be a finite number"),
        (["run", "--id", "build-revise", "--deadline", "nan"], "--deadline 'nan': input should be a finite number"),
        (
            ["run", "--id", "build-revise", "--agent-time-limit=-inf"],
            "--agent-time-limit '-inf': input should be a finite",
        ),
        (["run", "--id", "build-revise", "--hard-stop-cents", str(2**63)], "less than or equal to 1000000000"),
        (["review", "results", "--note", "x"], "is not an attempt folder"),
        (["review", "results/camp", "--note", "x"], "is not an attempt folder"),
    ],
)
def test_bad_command_line_is_one_clear_line_and_changes_nothing(tmp_path: Path, args: list[str], says: str) -> None:
    (tmp_path / "results" / "camp").mkdir(parents=True)
    (tmp_path / "a-file").write_text("keep me\n")
    before = listing(tmp_path)
    done = harness(*args, cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert says in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert listing(tmp_path) == before and (tmp_path / "a-file").read_text() == "keep me\n"


def test_a_broken_attempt_in_a_cell_folder_can_still_be_reviewed(tmp_path: Path) -> None:
    cell = registry.catalog().cells()[0].execution_id
    broken = tmp_path / "results" / "camp" / cell / "1-abcd"
    broken.mkdir(parents=True)
    done = harness("review", str(broken), "--note", "the run died before writing its record", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (broken / "review.json").is_file()


def test_a_reader_that_went_away_gets_no_traceback(tmp_path: Path) -> None:
    """`harness list --all | head -c0`: exit 120, as Python's own, and nothing on stderr."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "harness.cli", "list", "--all"],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tmp_path,
            timeout=60,
        )
    finally:
        os.close(write_end)
    assert done.returncode == 120 and done.stderr == ""


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (
            ("--id", "build-revise", "--scripted-persona", "nope"),
            "--scripted-persona: unknown persona 'nope'; known: default,",
        ),
        (
            ("--id", "build-revise", "--product-defect", "nope"),
            "--product-defect: testbed has no defect 'nope'; known: ",
        ),
        (
            (
                "--id",
                "everyday-workflows-paperclip.scripted.paperclip-local.build-revise",
                "--product-defect",
                "message-lost",
            ),
            "--product-defect: paperclip has no defect 'message-lost'; it has none to switch on",
        ),
        (
            (
                "--id",
                "everyday-workflows-replay.replay-codex.local.build-revise",
                "--scripted-persona",
                "forgets-nonce",
            ),
            "--scripted-persona applies to the scripted profile only, not replay-codex",
        ),
    ],
)
def test_calibration_names_a_cell_cannot_have_are_refused_before_anything_starts(
    argv: tuple[str, ...], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", *argv]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"harness: {says}") and err.count("\n") == 1
