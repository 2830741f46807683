"""Tasks plug in by name: the registry, usage errors for unknown tasks and modes, and every result naming its task."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from calibration.zips import zip_bytes
from oracle import OracleTask, UnknownMode, UnknownTask, grade, tasks
from oracle.checks import ENGINE_DIAGNOSTICS, INTAKE, SANDBOX_COMPLETED, CheckRegistry
from tests.needs import marked


def _oracle(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "oracle", *args], capture_output=True, text=True, timeout=120, env=dict(os.environ)
    )


def test_slugify_is_found_by_name_and_is_the_default() -> None:
    assert {"slugify", "slugify-tests"} <= set(tasks.known()) and tasks.DEFAULT_TASK == "slugify"
    assert tasks.load() is tasks.load("slugify")


@pytest.mark.parametrize("name", tasks.known())
def test_every_task_folder_fills_in_the_protocol(name: str) -> None:
    task = tasks.load(name)
    assert isinstance(task, OracleTask) and task.name == name and task.modes
    assert task.collector.is_file() and task.contract.__name__.startswith(f"oracle.tasks.{tasks.folder(name)}.")
    assert task.checks.order[: len(INTAKE)] == INTAKE and SANDBOX_COMPLETED in task.checks.order
    assert set(ENGINE_DIAGNOSTICS) <= set(task.checks.diagnostics)  # every collector reports what it ran again
    assert task.reference_solution()


def test_a_task_cannot_register_an_id_twice_or_reuse_the_engines() -> None:
    for host, diagnostics in [(("a", "a"), ()), ((SANDBOX_COMPLETED,), ()), (("a",), ("a",)), ((), ENGINE_DIAGNOSTICS)]:
        with pytest.raises(ValueError, match="unique and distinct"):
            CheckRegistry.for_task(host=host, sandboxed=(), diagnostics=diagnostics)


def test_unknown_task_and_mode_are_usage_errors_before_any_engine(tmp_path: Path) -> None:
    with pytest.raises(UnknownTask, match="known: .*slugify"):
        grade(tmp_path / "absent.zip", "base", task="no-such-task")
    with pytest.raises(UnknownMode, match="choose one of base, separator"):
        grade(tmp_path / "absent.zip", "no-such-mode")


@marked("docker")
@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--task", "no-such-task", "--mode", "base"), "known: slugify"),
        (("--mode", "no-such-mode"), "no mode 'no-such-mode'"),
    ],
)
def test_cli_refuses_unknown_task_or_mode_with_exit_2_and_one_line(
    tmp_path: Path, args: tuple[str, ...], says: str
) -> None:
    delivery = tmp_path / "delivery.zip"  # a path the command accepts: the task or mode is what is wrong
    delivery.write_bytes(b"not graded")
    done = _oracle("grade", *args, str(delivery))
    assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and says in done.stderr


def test_every_result_names_its_task(client, good_zip: Path) -> None:
    done = _oracle("grade", "--task", "slugify", "--mode", "base", str(good_zip))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["task"] == "slugify"
    assert grade(good_zip, "base", client=client).task == "slugify"  # positional (zip, mode), as journeys call it


@pytest.mark.parametrize("name", tasks.known())
def test_every_task_reference_solution_passes_every_mode(client, tmp_path: Path, name: str) -> None:
    task = tasks.load(name)
    path = tmp_path / "reference.zip"
    path.write_bytes(zip_bytes(task.reference_solution()))
    failures = {
        mode: result.deciding_check
        for mode in task.modes
        if not (result := grade(path, mode, name, client=client)).passed
    }
    assert failures == {}
