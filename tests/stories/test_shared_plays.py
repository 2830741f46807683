"""A shared play is played once and kept whatever its cells' verdicts: a reader of one cell needs only that cell."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.stories.shared_plays import Play, played_once


def _play(plays: list[Path], returncode: int, stdout: str, leaves_a_process_once: bool = False) -> Play:
    """A stand-in for `harness run` that counts its plays; the first may fail what must hold right after."""

    def play(results: Path) -> subprocess.CompletedProcess[str]:
        plays.append(results)
        (results / "test").mkdir(parents=True)
        assert not (leaves_a_process_once and len(plays) == 1), "a process outlived its attempt"
        return subprocess.CompletedProcess(["harness", "run"], returncode, stdout=stdout)

    return play


def test_a_play_with_a_failed_cell_is_kept_for_readers_of_its_other_cells(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    plays: list[Path] = []
    play = _play(plays, 1, "failed  one of the cells\n")
    first = played_once(tmp_path_factory, "one-cell-failed", play)
    again = played_once(tmp_path_factory, "one-cell-failed", play)
    assert len(plays) == 1 and again == first and (first.results / "test").is_dir()
    with pytest.raises(AssertionError, match="one of the cells"):
        first.every_cell_passed()


def test_a_play_that_fails_what_must_hold_right_after_is_played_again(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    plays: list[Path] = []
    play = _play(plays, 0, "passed\n", leaves_a_process_once=True)
    with pytest.raises(AssertionError, match="outlived"):
        played_once(tmp_path_factory, "leaves-a-process", play)
    assert played_once(tmp_path_factory, "leaves-a-process", play).every_cell_passed().stdout == "passed\n"
    assert len(plays) == 2
