"""The suite's per-test CPU: written by each worker, read back and summed by file."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import suite_cpu
from bench.suite_cpu import Spent


def test_costs_written_by_two_workers_are_summed_by_file_costliest_first(tmp_path: Path) -> None:
    (tmp_path / "gw0.json").write_text('{"tests/a.py::one": {"cpu_s": 1.5, "wall_s": 3.0}}')
    (tmp_path / "gw1.json").write_text(
        '{"tests/b.py::two": {"cpu_s": 4.0, "wall_s": 5.0}, "tests/a.py::three": {"cpu_s": 0.5, "wall_s": 1.0}}'
    )
    costs = suite_cpu.read(tmp_path)
    assert costs["tests/b.py::two"] == Spent(cpu_s=4.0, wall_s=5.0)
    lines = suite_cpu.summary(costs, top=1)
    assert lines[0] == "3 tests, 6 CPU-s counted under them"
    assert lines[2].split() == ["4.0", "5.0", "1", "tests/b.py"]
    assert lines[3].split() == ["2.0", "4.0", "2", "tests/a.py"]
    assert lines[-1].split() == ["4.0", "5.0", "tests/b.py::two"]


def test_an_empty_folder_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert suite_cpu.main([str(tmp_path)]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_the_session_line_splits_the_machine_cpu_into_what_each_group_counted(tmp_path: Path) -> None:
    (tmp_path / "gw0.json").write_text('{"tests/a.py::one": {"cpu_s": 60.0, "wall_s": 70.0}}')
    session = '{"machine_s": 100, "wall_s": 80, "controller_s": 2, "engine_s": 10, "containers_s": 8}'
    (tmp_path / suite_cpu.SESSION_FILE).write_text(session)
    costs = suite_cpu.read(tmp_path)
    assert list(costs) == ["tests/a.py::one"]
    [line] = suite_cpu.session_lines(tmp_path, counted_s=60.0)
    assert line == (
        "machine 100 CPU-s busy over 80 s: tests 60, engine 10, containers 8, controller 2, counted nowhere 20"
    )
