"""Every story test leaves nothing behind, pass or fail: what its `harness run` started ends with it."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.running.ownership import end_processes_naming
from tests.stories.harness_runs import run_temp


@pytest.fixture(autouse=True)
def nothing_left_behind(tmp_path: Path) -> Iterator[None]:
    """After the test (its own assertions about leftovers come first), end and remove what its run left."""
    yield
    temp = run_temp(tmp_path)
    end_processes_naming(temp)
    shutil.rmtree(temp, ignore_errors=True)
