"""A benchmark's bad command line is one line and exit 2, before anything is measured."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.command_line import Ended, assert_refused, ended, never_parsed, put_a_file_in_the_way


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["bench.harness", "--repetitions", "0"], "--repetitions: 0 is not 1 or more"),
        (["bench.harness", "--case", "no-such-case"], "--case: unknown id 'no-such-case'"),
        (["bench.oracle", "--repetitions", "two"], "--repetitions: not a whole number: 'two'"),
        (["bench.report", "--keep", "a-file"], "--keep: a-file is a file, not a folder"),
        (["bench.proxy", "--calls", "0"], "--calls: 0 is not 1 or more"),
        (["bench.controller_start", "--repetitions", "-1"], "--repetitions: -1 is not 1 or more"),
        (["bench.cell_cpu", "--rounds", "0"], "--rounds: 0 is not 1 or more"),
        (["everyday_paperclip.bench", "--rounds", "0"], "--rounds: 0 is not 1 or more"),
        (["bench.parallel", "--max-parallel", "0"], "--max-parallel: 0 is not 1 or more"),
        (["bench.soak", "--max-seconds", "nan"], "--max-seconds: nan is not a positive, finite number of seconds"),
        (["bench.replay_cells", "--cells", "no-such-cell"], "--cells: unknown id 'no-such-cell'"),
    ],
)
def test_a_bad_benchmark_command_line_is_one_line(
    tmp_path: Path,
    args: list[str],
    says: str,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    """Before, zero repetitions ran and ended in a traceback (no median of nothing); NaN seconds ran unbounded.

    The benchmark's ``main`` is called in this process, without ``run_benchmark`` around it (it would take over
    this worker's signals): what it wraps is proven by the subprocess test below.
    """
    before = put_a_file_in_the_way(tmp_path)
    monkeypatch.chdir(tmp_path)
    never_parsed(monkeypatch)
    module, *argv = args
    done = ended(importlib.import_module(module).main, argv, capfd)
    assert_refused(done, says, tmp_path, before)


def test_python_m_bench_ends_as_its_main_does(tmp_path: Path) -> None:
    """Through ``run_benchmark`` in a real interpreter: exit 2, the reason last, no traceback, nothing written."""
    before = put_a_file_in_the_way(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "bench.report", "--keep", "a-file"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},  # bench/ lives in the checkout
        timeout=60,
    )
    assert_refused(Ended.of(done), "--keep: a-file is a file, not a folder", tmp_path, before)


def test_a_benchmark_command_line_wrongly_accepted_fails_the_test_instead_of_measuring(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """The guard the in-process cases above stand behind: a good command line reaches it, and nothing is measured."""
    never_parsed(monkeypatch)
    with pytest.raises(AssertionError, match="python -m bench.proxy accepted"):
        ended(importlib.import_module("bench.proxy").main, ["--calls", "1"], capfd)
    assert capfd.readouterr().out == ""
