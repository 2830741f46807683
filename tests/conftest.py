"""Shared test configuration: the harness plugin (real Chromium launch options and story cells), and the
markers of what a test needs (tests/needs.py), which keep `make check` (`pytest --no-launch`) apart from the
real-parts tests."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.core.machine_cpu import MachineCpu
from harness.running.ownership import claim_run_folder, end_processes_naming, release_run_folder, remove_dead_owners
from tests.stories import harness_runs

pytest_plugins = ["harness.running.plugin", "tests.needs", "tests.scheduling", "pytester"]


RUN_FOLDER = pytest.StashKey[Path]()
MACHINE_CPU = pytest.StashKey[MachineCpu]()
PROFILE_EVERY_S = 60.0
"""The closing lines say how busy the cores were in each such stretch of the session."""


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):
        config.stash[MACHINE_CPU] = MachineCpu(every_s=PROFILE_EVERY_S)
    config.addinivalue_line("markers", "defect_sweep: a testbed defect's own flow, played only with --defect-sweep")
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        # A process that starts products and browsers (an xdist worker, or a run without workers) works in a
        # folder labelled with its owner, as `harness run` does: a test run killed outright leaves nothing the
        # next one (or `harness clean`) does not end and remove. tmp_path stays where pytest keeps and prunes it.
        os.environ.setdefault("PYTEST_DEBUG_TEMPROOT", tempfile.gettempdir())
        remove_dead_owners()
        config.stash[RUN_FOLDER] = claim_run_folder()


def pytest_unconfigure(config: pytest.Config) -> None:
    if RUN_FOLDER in config.stash:
        release_run_folder(config.stash[RUN_FOLDER])


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--defect-sweep",
        action="store_true",
        help="also play every testbed defect's own flow, not one per flow (`make defect-sweep`)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.getoption("--defect-sweep"):
        swept = [item for item in items if item.get_closest_marker("defect_sweep")]
        if swept:
            config.hook.pytest_deselected(items=swept)
            items[:] = [item for item in items if not item.get_closest_marker("defect_sweep")]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    """The CPU the session kept the machine busy with: the wall time `make test` cannot beat on these cores."""
    machine = config.stash[MACHINE_CPU] if MACHINE_CPU in config.stash else None
    for line in (machine.floor(), machine.profile()) if machine else ():
        if line:
            terminalreporter.write_line(line)


@pytest.fixture(autouse=True)
def nothing_left_behind() -> Iterator[None]:
    """After a test that started `harness run` or calibration (its own assertions about leftovers come first),
    end and remove what they left, pass or fail."""
    yield
    while harness_runs.handed_out:
        temp = harness_runs.handed_out.pop()
        end_processes_naming(temp)
        shutil.rmtree(temp, ignore_errors=True)
