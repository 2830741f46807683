"""Bad command lines get one line on stderr, exit 2, no traceback, and change nothing on disk."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import main
from harness.core import registry
from tests.command_line import Ended, assert_refused, ended, never_starts, put_a_file_in_the_way


def a_folder_to_refuse_in(folder: Path) -> list[str]:
    """A results folder with a campaign in it and a file in the way; what it holds before the command."""
    (folder / "results" / "camp").mkdir(parents=True)
    return put_a_file_in_the_way(folder)


def assert_one_line(done: Ended, says: str, folder: Path, before: list[str]) -> None:
    assert_refused(done, says, folder, before)
    assert len(done.err.strip().splitlines()) == 1, done.err


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
def test_bad_command_line_is_one_clear_line_and_changes_nothing(
    tmp_path: Path,
    args: list[str],
    says: str,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    before = a_folder_to_refuse_in(tmp_path)
    monkeypatch.chdir(tmp_path)
    never_starts(monkeypatch, "harness.running.campaign.run_cells")
    assert_one_line(ended(main, args, capfd), says, tmp_path, before)


def test_python_m_harness_cli_ends_as_its_main_does(tmp_path: Path) -> None:
    """The cases above call ``main`` in this process; the interpreter ends with its status, and no traceback."""
    before = a_folder_to_refuse_in(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "harness.cli", "run", "--id", "build-revise", "--results", "a-file/x"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert_one_line(Ended.of(done), "a-file/x is under a-file", tmp_path, before)


def test_a_broken_attempt_in_a_cell_folder_can_still_be_reviewed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    cell = registry.catalog().cells()[0].execution_id
    broken = tmp_path / "results" / "camp" / cell / "1-abcd"
    broken.mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    done = ended(main, ["review", str(broken), "--note", "the run died before writing its record"], capfd)
    assert done.status == 0, done.err
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


def test_a_command_line_wrongly_accepted_fails_the_test_instead_of_starting_a_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """The guard the in-process cases above stand behind: a good command line reaches it, and nothing starts."""
    never_starts(monkeypatch, "harness.running.campaign.run_cells")
    with pytest.raises(AssertionError, match="reached harness.running.campaign.run_cells"):
        ended(main, ["run", "--id", "build-revise", "--results", str(tmp_path)], capfd)
    assert not any(tmp_path.iterdir())
