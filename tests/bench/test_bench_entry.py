"""A benchmark told to stop ends in one line and leaves nothing running or on disk, as `harness run` does."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import pytest

from harness.running.ownership import OWNED_ROOT_NAME
from tests.stories.harness_runs import processes_naming, run_temp, stopped_mid_run


@pytest.mark.e2e
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["kill", "ctrl-c"])
def test_a_soak_told_to_stop_ends_its_testbed_and_removes_its_folder(tmp_path: Path, sig: signal.Signals) -> None:
    """`kill` once ended the soak at once: its testbed controller, in a session of its own, ran on, its data
    folder outside the labelled run folders the next run sweeps; Ctrl-C ended in a traceback."""
    temp = run_temp(tmp_path)
    done = stopped_mid_run([sys.executable, "-m", "bench.soak", "--kills", "20"], temp, "testbed", sig)
    stderr = done.stderr
    says = "Ctrl-C" if sig is signal.SIGINT else "SIGTERM"
    assert done.returncode == 130 and stderr.strip().splitlines()[-1] == f"bench: interrupted ({says})", stderr
    assert "Traceback" not in stderr
    assert processes_naming(temp) == []
    assert not [path for path in temp.rglob("*") if OWNED_ROOT_NAME not in path.parts], list(temp.rglob("*"))
    assert not [*(temp / OWNED_ROOT_NAME).glob("*/*")], "the soak's run folder was left behind"
