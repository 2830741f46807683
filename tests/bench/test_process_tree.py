"""The bench's tree memory: a process that left its parent still counts, and one left behind is reported.

Each measurement runs in a subprocess of its own, because measuring makes the
measuring process a child subreaper for the rest of its life (a pytest worker
must not inherit every orphan of the suite).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from bench.process_tree import TreePeak

HOLD_MIB = 160
# A detached grandchild: the subshell that starts it exits at once, so only a subreaper still sees it. It says
# when its memory is held (a file), and the command waits for that, then long enough for several samples.
HOLDER = (
    f'python3 -c \'import time, pathlib; x = b"x" * ({HOLD_MIB} * 2**20); pathlib.Path("held").touch();'
    " time.sleep(%s)'"
)
HELD = "until [ -e held ]; do sleep 0.05; done"


def measured(shell: str, tmp_path: Path) -> TreePeak:
    code = (
        "import sys; from pathlib import Path; from bench.process_tree import run_measured;"
        f"print(run_measured(['bash', '-c', {shell!r}], Path({str(tmp_path / 'out')!r})).model_dump_json())"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},  # bench/ lives in the checkout
    )
    return TreePeak.model_validate_json(done.stdout.strip().splitlines()[-1])


def test_an_orphaned_grandchilds_memory_is_in_the_peak(tmp_path: Path) -> None:
    peak = measured(f"({HOLDER % 1.5} &); {HELD}; sleep 3", tmp_path)
    assert peak.exit_status == 0 and peak.leftovers == 0
    assert peak.peak_rss_mib >= HOLD_MIB and peak.peak_pss_mib >= HOLD_MIB * 0.9
    assert peak.peak_processes >= 2 and peak.samples >= 4


def test_a_process_left_running_is_reported_and_ended(tmp_path: Path) -> None:
    peak = measured(f"({HOLDER % 120} &); {HELD}; sleep 1.5", tmp_path)
    assert peak.leftovers == 1 and peak.peak_rss_mib >= HOLD_MIB
    left = subprocess.run(["pgrep", "-f", f"{HOLD_MIB} \\* 2\\*\\*20); time.sleep\\(120"], capture_output=True)
    assert left.returncode == 1, left.stdout
