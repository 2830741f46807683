"""Cells played once per test session and read by every test that needs them, whichever worker it runs on.

A test that needs a cell another test already plays with the same inputs takes
that play's packages instead of playing it again: a play here is a named function
of a results folder (it plays and asserts what must hold right after, such as
nothing left running), done by the first test that asks under a file lock the
session's workers share, and read by the others. A play that fails marks nothing,
so the next test that asks plays it again and fails on its own account.
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
Play = Callable[[Path], subprocess.CompletedProcess[str]]


@dataclass(frozen=True)
class Played:
    results: Path
    stdout: str


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
            (root / PLAYED).write_text(done.stdout)
    return Played(root / "results", (root / PLAYED).read_text())


def leaving_nothing(cells: list[str], *, containers: bool = False) -> Play:
    """Play the cells in one `harness run`; it exits 0 and no product process outlives it (``containers``: no runner
    container of its product instances either)."""

    def play(results: Path) -> subprocess.CompletedProcess[str]:
        done = harness_run(results, *ids(cells), cells=len(cells))
        assert done.returncode == 0, done.stdout[-2000:]
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
    return played_once(factory, "build-revise", leaving_nothing(BUILD_REVISE))


def fault_stories(factory: pytest.TempPathFactory) -> Played:
    """Every fault story's scripted cell, each passed with no failed check."""
    return played_once(factory, "fault-stories", leaving_nothing(sorted(FAULT_STORIES)))


def replay(factory: pytest.TempPathFactory, cli: str) -> Played:
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
