"""Every story test leaves nothing behind, pass or fail: what its `harness run` started ends with it."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest

from harness.running.ownership import end_processes_naming
from tests.stories import harness_runs


@pytest.fixture(autouse=True)
def nothing_left_behind() -> Iterator[None]:
    """After the test (its own assertions about leftovers come first), end and remove what its runs left."""
    yield
    while harness_runs.handed_out:
        temp = harness_runs.handed_out.pop()
        end_processes_naming(temp)
        shutil.rmtree(temp, ignore_errors=True)
