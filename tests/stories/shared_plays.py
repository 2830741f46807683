"""Cells played once per test session and read by every test that needs them, whichever worker it runs on.

A test that needs a cell another test already plays with the same inputs takes
that play's packages instead of playing it again: a play here is a named function
of a results folder (it plays and asserts what must hold right after, such as
nothing left running), done by the first test that asks under a file lock the
session's workers share, and read by the others. A play that fails what must hold
right after marks nothing, so the next test that asks plays it again and fails on
its own account. Whether every cell passed is kept with the play, not asserted by
it: a reader that needs them all asks (``Played.every_cell_passed``), and one that
reads a single cell checks that cell, so another cell's failure fails the tests
of that cell and not the reader's (the timeline's tests read one recover-controller
attempt of the fault stories' play and one of Codex's replay cells).
Readers only read: a test that writes (a report, a regrade) writes beside the
packages, or into a copy (``copy_packages``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from filelock import FileLock

from harness.core.records import AttemptRecord
from tests.stories.harness_runs import attempts, containers_of, harness_run, ids, processes_of
from tests.stories.story_expectations import FAULT_STORIES

PLAYED = "played"
"""The mark a finished play leaves beside its results folder: what `harness run` printed."""
EXIT_STATUS = "exit-status"
"""Beside the mark, `harness run`'s exit status: 0 when every cell passed."""
Play = Callable[[Path], subprocess.CompletedProcess[str]]


@dataclass(frozen=True)
class Played:
    results: Path
    stdout: str
    returncode: int

    def every_cell_passed(self) -> Played:
        """This play, for a reader that needs every cell of it passed (`harness run` exits 0 only then)."""
        assert self.returncode == 0, self.stdout[-2000:]
        return self


def session_root(factory: pytest.TempPathFactory) -> Path:
    """The folder every worker of this session shares (xdist gives each worker a base folder under one parent)."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def played_once(factory: pytest.TempPathFactory, name: str, play: Play) -> Played:
    """The results of ``play``, played by the first test of the session that asks for ``name``."""
    root = session_root(factory) / "shared-plays" / name
    root.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(f"{root}.lock"):
        if not (root / PLAYED).is_file():
            shutil.rmtree(root, ignore_errors=True)
            done = play(root / "results")
            (root / EXIT_STATUS).write_text(str(done.returncode))
            (root / PLAYED).write_text(done.stdout)
    return Played(root / "results", (root / PLAYED).read_text(), int((root / EXIT_STATUS).read_text()))


def leaving_nothing(cells: list[str], *, containers: bool = False) -> Play:
    """Play the cells in one `harness run`; no product process outlives it (``containers``: no runner container of
    its product instances either). Its exit status is the readers' to check (see the module's docstring)."""

    def play(results: Path) -> subprocess.CompletedProcess[str]:
        done = harness_run(results, *ids(cells), cells=len(cells))
        assert processes_of(results) == [], "a product, runner, CLI or metering process outlived its attempt"
        if containers:
            assert containers_of(results) == set(), "a runner's container outlived its attempt"
        return done

    return play


BUILD_REVISE = [
    "everyday-workflows-scripted.scripted.local.build-revise",
    "everyday-workflows-scripted.scripted.container.build-revise",
]
"""The plain scripted build-revise, locally and in the testbed's container environment."""

REPLAY_CELLS = [
    ("codex", "build-revise", "local"),
    ("codex", "recover-controller", "local"),
    ("claude", "recover-controller-sigkill", "local"),
    ("claude", "stop-redirect", "local"),
    ("opencode", "delegate-feedback", "local"),
    ("opencode", "recover-controller-drain", "local"),  # the testbed drains on its operator's request
    # In a sandbox: the CLI in its container, its metering proxy on the host across the controller's restart.
    ("codex", "recover-controller", "container"),
]
"""Each everyday story with one real CLI against the replay, each CLI on at least one (tests/stories/test_replay_stories)."""


def replay_cells(cli: str) -> dict[str, str]:
    """The CLI's replay cells (execution id to case), played in one `harness run`."""
    return {f"everyday-workflows-replay.replay-{cli}.{env}.{case}": case for c, case, env in REPLAY_CELLS if c == cli}


def build_revise(factory: pytest.TempPathFactory) -> Played:
    """Both build-revise cells, each passed: every reader of this play reads both or needs them whole."""
    return played_once(factory, "build-revise", leaving_nothing(BUILD_REVISE)).every_cell_passed()


def fault_stories(factory: pytest.TempPathFactory) -> Played:
    """Every fault story's scripted cell, passed or not (see ``Played.every_cell_passed``)."""
    return played_once(factory, "fault-stories", leaving_nothing(sorted(FAULT_STORIES)))


def replay(factory: pytest.TempPathFactory, cli: str) -> Played:
    """The CLI's replay cells, passed or not (see ``Played.every_cell_passed``)."""
    return played_once(factory, f"replay-{cli}", leaving_nothing(sorted(replay_cells(cli)), containers=True))


def package_of(results: Path, execution_id: str) -> tuple[AttemptRecord, Path]:
    """The cell's one attempt in a shared play, and its package folder."""
    [record] = [r for r in attempts(results) if r.cell.execution_id == execution_id]
    return record, results / "test" / execution_id / record.attempt


def copy_packages(results: Path, execution_ids: list[str], into: Path) -> Path:
    """A results folder of its own holding only these cells' packages from a shared play, for a test that writes
    beside them or reads the folder whole (a report of exactly these attempts)."""
    for execution_id in execution_ids:
        _, package = package_of(results, execution_id)
        shutil.copytree(package, into / "test" / execution_id / package.name)
    return into
