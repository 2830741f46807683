"""A benchmark's bad command line is one line and exit 2, before anything is measured."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["bench.harness", "--repetitions", "0"], "--repetitions: 0 is not 1 or more"),
        (["bench.harness", "--case", "no-such-case"], "--case: unknown id 'no-such-case'"),
        (["bench.oracle", "--repetitions", "two"], "--repetitions: not a whole number: 'two'"),
        (["bench.report", "--keep", "a-file"], "--keep: a-file is a file, not a folder"),
        (["bench.proxy", "--calls", "0"], "--calls: 0 is not 1 or more"),
        (["bench.controller_start", "--repetitions", "-1"], "--repetitions: -1 is not 1 or more"),
        (["bench.paperclip", "--rounds", "0"], "--rounds: 0 is not 1 or more"),
        (["bench.parallel", "--max-parallel", "0"], "--max-parallel: 0 is not 1 or more"),
        (["bench.soak", "--max-seconds", "nan"], "--max-seconds: nan is not a positive, finite number of seconds"),
        (["bench.replay_cells", "--cells", "no-such-cell"], "--cells: unknown id 'no-such-cell'"),
    ],
)
def test_a_bad_benchmark_command_line_is_one_line(tmp_path: Path, args: list[str], says: str) -> None:
    """Before, zero repetitions ran and ended in a traceback (no median of nothing); NaN seconds ran unbounded."""
    (tmp_path / "a-file").write_text("keep me\n")
    done = subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert says in done.stderr.splitlines()[-1], done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]
