"""The judges' door lists the built-ins and the example plug-in's judge, each behind the entry-point group."""

from __future__ import annotations

import contextlib
import io
from importlib.metadata import entry_points

import pytest

from harness.cli import main
from harness.judges.door import JUDGES_GROUP, Judge, JudgeDoorError, load_judge
from harness.judges.settings import JudgeSettings


def test_the_group_registers_rules_model_and_the_example_judge() -> None:
    names = {entry.name for entry in entry_points(group=JUDGES_GROUP)}
    assert {"rules", "model", "example-substance"} <= names


def test_each_loads_as_a_judge_with_a_name_and_version() -> None:
    for name in ("rules", "model", "example-substance"):
        judge = load_judge(name, JudgeSettings())
        assert isinstance(judge, Judge)
        assert judge.name == name and judge.version


def test_harness_list_judges_prints_them() -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["list", "--judges"]) == 0
    printed = [line.split()[0] for line in out.getvalue().splitlines()]
    assert {"rules", "model", "example-substance"} <= set(printed)


def test_an_unknown_judge_is_named_with_the_known_ones() -> None:
    with pytest.raises(JudgeDoorError, match="no judge 'nobody'.*rules"):
        load_judge("nobody")
