"""`python -m oracle` as stories and reviewers call it: exit codes, one JSON object, one-line hints."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from calibration.deliveries import ENDLESS, WRONG_BUT_SELF_TESTED, project
from calibration.sources import gated
from calibration.zips import zip_bytes
from oracle import checks as engine
from oracle import cli
from oracle.tasks.slugify import checks as ids
from tests.command_line import Ended, ended, never_parsed
from tests.needs import marked


def _oracle(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "oracle", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


def test_good_delivery_exits_0_with_one_json_object(client, good_zip: Path) -> None:
    done = _oracle("grade", "--mode", "separator+max-length", str(good_zip))
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["passed"] is True and result["mode"] == "separator+max-length"
    assert result["image"].startswith("sha256:") and result["elapsed_s"] > 0
    assert {c["id"] for c in result["checks"]} >= {ids.BASE_CLI, ids.BASE_FUNCTION, ids.COMBINED_VALUES}
    assert all(set(c) == {"id", "passed", "detail"} for c in result["checks"])


def test_unreadable_archive_exits_1_without_traceback(client, tmp_path: Path) -> None:
    path = tmp_path / "broken.zip"
    path.write_bytes(b"PK\x03\x04 definitely not a zip")
    done = _oracle("grade", "--mode", "base", str(path))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    result = json.loads(done.stdout)
    assert result["passed"] is False and result["checks"][0]["id"] == engine.INTAKE_READABLE


def _refused(argv: list[str], capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Ended:
    """``main(argv)`` in this process, for a command line refused while parsing (once parsed, ``main`` takes this
    process's stop signals and grades); `python -m oracle` itself is proven by the engine-bound refusals."""
    never_parsed(monkeypatch)
    return ended(cli.main, argv, capfd)


@pytest.mark.parametrize("name", ["absent.zip", "."])
def test_a_missing_path_or_a_folder_is_a_usage_error_exit_2_in_one_line(
    tmp_path: Path, name: str, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    done = _refused(["grade", "--mode", "base", str(tmp_path / name)], capfd, monkeypatch)
    assert done.status == 2 and done.out == "" and done.err.count("\n") == 1, done.err
    assert done.err.startswith("oracle: argument ZIP: ") and ("no file at" in done.err or "is a folder" in done.err)


def test_missing_image_exits_2_with_one_line_hint(client, good_zip: Path) -> None:
    done = _oracle(
        "grade", "--mode", "base", str(good_zip), env={"EVERYDAY_ORACLE_IMAGE": "everyday-evals-oracle:absent"}
    )
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and "make oracle-image" in done.stderr


def test_missing_engine_exits_2_with_one_line_hint(good_zip: Path) -> None:
    done = _oracle("grade", "--mode", "base", str(good_zip), env={"DOCKER_HOST": "unix:///nonexistent/docker.sock"})
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1 and "make engine" in done.stderr


def test_preflight_reports_image_or_the_fix(client) -> None:
    ok = _oracle("preflight")
    assert ok.returncode == 0 and "sha256:" in ok.stdout
    missing = _oracle("preflight", env={"EVERYDAY_ORACLE_IMAGE": "everyday-evals-oracle:absent"})
    assert missing.returncode == 2 and "make oracle-image" in missing.stderr


def test_every_grade_flag_is_a_grade_argument() -> None:
    from oracle import GradeJob, GradeOptions
    from oracle.cli import parser

    grade_parser = parser()._subparsers._group_actions[0].choices["grade"]
    flags = {a.dest for a in grade_parser._actions if a.option_strings and a.dest != "help"}
    mapping = {
        "task": "task",
        "mode": "mode",
        "image": "image_ref",
        "command_timeout": "command_timeout_s",
        "deadline": "deadline_s",
        "agent_tests": "agent_tests",
        "workers": "workers",
    }
    assert flags == set(mapping)
    assert set(mapping.values()) <= set(GradeJob.model_fields) | set(GradeOptions.model_fields)


def test_the_command_lines_bounds_are_the_engines() -> None:
    """The CLI keeps its own copies (importing the engine would cost every usage error the Docker SDK); they must agree."""
    from oracle import cli, grader, sandbox

    assert cli.MAX_SECONDS == sandbox.MAX_DEADLINE_S and cli.MAX_WORKERS == grader.MAX_WORKERS
    assert parser_default("workers") == grader.DEFAULT_WORKERS


def parser_default(dest: str) -> object:
    from oracle.cli import parser

    grade_parser = parser()._subparsers._group_actions[0].choices["grade"]
    return next(a.default for a in grade_parser._actions if a.dest == dest)


BAD_VALUES = [
    ("--deadline", "0"),
    ("--deadline", "-1"),
    ("--deadline", "nan"),
    ("--deadline", "inf"),
    ("--deadline", "abc"),
    ("--deadline", "3601"),
    ("--command-timeout", "0"),
    ("--command-timeout", "-0.5"),
    ("--command-timeout", "nan"),
    ("--command-timeout", "x"),
    ("--workers", "0"),
    ("--workers", "17"),
    ("--workers", "1.5"),
    ("--workers", "many"),
    ("--image", ""),
    ("--image", "  "),
]
BAD_QUESTIONS = [  # refused once the grade starts, so by a real `python -m oracle`
    ("--task", "nosuchtask"),
    ("--task", "../oracle"),
    ("--mode", "nosuchmode"),
    ("--mode", ""),
]


def assert_one_line_exit_2(done: Ended) -> None:
    """Bad input is the question's fault (2), never the delivery's (1), and never a traceback."""
    assert done.status == 2, (done.status, done.err)
    assert done.out == "" and "Traceback" not in done.err
    assert len(done.err.strip().splitlines()) == 1 and done.err.startswith("oracle: "), done.err


@pytest.mark.parametrize(("flag", "value"), BAD_VALUES, ids=[f"{f}={v!r}" for f, v in BAD_VALUES])
def test_a_bad_flag_value_is_one_line_and_exit_2(
    flag: str, value: str, good_zip: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert_one_line_exit_2(_refused(["grade", "--mode", "base", flag, value, str(good_zip)], capfd, monkeypatch))


@marked("docker")
@pytest.mark.parametrize(("flag", "value"), BAD_QUESTIONS, ids=[f"{f}={v!r}" for f, v in BAD_QUESTIONS])
def test_a_task_or_mode_it_has_not_is_one_line_and_exit_2(flag: str, value: str, good_zip: Path) -> None:
    args = {"--mode": "base", flag: value}
    assert_one_line_exit_2(Ended.of(_oracle("grade", *[part for pair in args.items() for part in pair], str(good_zip))))


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["grade"],
        ["grade", "--mode", "base"],
        ["grade", "x.zip"],
        ["grade", "--mode", "base", "--nope", "x.zip"],
        ["nosuchcommand"],
        ["preflight", "--image", ""],
    ],
)
def test_bad_usage_is_one_line_and_exit_2(
    argv: list[str], capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    done = _refused(argv, capfd, monkeypatch)
    assert done.status == 2 and done.out == "" and "Traceback" not in done.err
    assert len(done.err.strip().splitlines()) == 1, done.err


def test_an_invalid_image_reference_is_exit_2(client, good_zip: Path) -> None:
    done = _oracle("grade", "--mode", "base", "--image", "Not A::Reference", str(good_zip))
    assert done.returncode == 2 and "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1, (
        done.stderr
    )


def test_a_bad_deadline_through_the_python_api_is_refused_before_the_engine() -> None:
    from pydantic import ValidationError

    from oracle import grade

    for bad in (0, -1, float("nan"), float("inf")):
        with pytest.raises(ValidationError):
            grade("unused.zip", "base", deadline_s=bad, client=None)


def _zip(folder: Path, name: str, files: dict[str, str]) -> Path:
    path = folder / name
    path.write_bytes(zip_bytes(files))
    return path


def test_several_zips_print_one_json_line_each_in_order(client, tmp_path: Path) -> None:
    good = _zip(tmp_path, "good.zip", project())
    wrong = _zip(tmp_path, "wrong.zip", project(WRONG_BUT_SELF_TESTED))
    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"not a zip")
    done = _oracle("grade", "--mode", "base", "--workers", "3", str(good), str(wrong), str(broken), str(good))
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    results = [json.loads(line) for line in lines]
    assert [r["zip_path"] for r in results] == [str(good), str(wrong), str(broken), str(good)]
    assert [r["passed"] for r in results] == [True, False, False, True]
    assert results[1]["deciding_check"] == ids.BASE_CLI and results[2]["deciding_check"] == engine.INTAKE_READABLE


def test_several_good_zips_exit_0(client, tmp_path: Path) -> None:
    paths = [_zip(tmp_path, f"good{i}.zip", project()) for i in range(3)]
    done = _oracle("grade", "--mode", "base", *map(str, paths))
    assert done.returncode == 0, done.stderr
    assert [json.loads(line)["passed"] for line in done.stdout.splitlines()] == [True, True, True]


def test_a_batch_that_cannot_grade_exits_2_and_prints_nothing(client, tmp_path: Path) -> None:
    paths = [_zip(tmp_path, f"good{i}.zip", project()) for i in range(2)]
    done = _oracle(
        "grade", "--mode", "base", *map(str, paths), env={"EVERYDAY_ORACLE_IMAGE": "everyday-evals-oracle:absent"}
    )
    assert done.returncode == 2 and done.stdout == "" and len(done.stderr.strip().splitlines()) == 1


def test_a_batch_runs_containers_in_parallel_and_keeps_the_order(client, witness, tmp_path: Path) -> None:
    """Two slow deliveries graded with three workers are in the engine at the same time, and come back in order.

    Overlap is seen on the engine (two of this process's grade containers running at once), not timed: how much
    a batch saves is a figure `python -m bench.oracle` prints.
    """
    from concurrent.futures import ThreadPoolExecutor

    from oracle import GradeJob, GradeOptions, grade_batch
    from oracle.sandbox import LABEL_PID

    endless = [_zip(tmp_path, f"endless{i}.zip", project(gated(ENDLESS, "True"))) for i in range(2)]
    good = _zip(tmp_path, "good.zip", project())
    jobs = [GradeJob(zip_path=path, mode="base") for path in (endless[0], good, endless[1])]
    options = GradeOptions(deadline_s=4, command_timeout_s=20, workers=3)
    most_at_once = 0
    with ThreadPoolExecutor(1) as pool:
        batch = pool.submit(grade_batch, jobs, options, client=client)
        while not batch.done():
            running = witness.api.containers(filters={"label": f"{LABEL_PID}={os.getpid()}", "status": "running"})
            most_at_once = max(most_at_once, len(running))
            time.sleep(0.05)
        results = batch.result()
    assert [r.zip_path for r in results] == [str(endless[0]), str(good), str(endless[1])]
    assert [r.passed for r in results] == [False, True, False]
    assert all(r.deciding_check == engine.SANDBOX_COMPLETED for r in (results[0], results[2]))
    assert most_at_once >= 2, "the batch's containers never ran at the same time"


def test_a_reader_that_went_away_gets_no_traceback_and_no_container_is_left(client, tmp_path: Path) -> None:
    """`grade ... | head -c0`: the grade is done, its answer has nowhere to go; exit 120, as Python's own."""
    path = tmp_path / "broken.zip"
    path.write_bytes(b"PK\x03\x04 definitely not a zip")  # graded (intake refuses it) and printed as JSON
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "oracle", "grade", "--mode", "base", str(path)],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(write_end)
    assert done.returncode == 120 and done.stderr == ""


HUP_AS_INHERITED = "import os, signal, sys; signal.signal(signal.SIGHUP, getattr(signal, sys.argv[1])); os.execv(*sys.argv[2:3], sys.argv[2:])"
"""Starts the grade with SIGHUP at the disposition a caller chose (SIG_IGN is what `nohup` hands down), whatever
this test process inherited (CI may itself run under `nohup`)."""


@pytest.mark.parametrize(
    ("sig", "hup", "stops"),
    [(signal.SIGTERM, "SIG_DFL", True), (signal.SIGHUP, "SIG_DFL", True), (signal.SIGHUP, "SIG_IGN", False)],
    ids=["kill", "hangup", "hangup-under-nohup"],
)
def test_a_grade_told_to_stop_removes_its_container(
    client, tmp_path: Path, sig: signal.Signals, hup: str, stops: bool
) -> None:
    """`kill` or `timeout` (SIGTERM) once ended a grade at once: its container stayed on the engine. A hangup
    stops it too, unless it was started under `nohup`, which asks for hangups to be ignored."""
    from oracle.sandbox import LABEL, LABEL_PID

    endless = _zip(tmp_path, "endless.zip", project(gated(ENDLESS, "True")))
    grade_line = [sys.executable, "-m", "oracle", "grade", "--mode", "base", "--deadline", "4", str(endless)]
    grade = subprocess.Popen(
        [sys.executable, "-c", HUP_AS_INHERITED, hup, *grade_line],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )

    def its_containers() -> list[dict]:
        return [c for c in client.containers(LABEL) if c["Labels"].get(LABEL_PID) == str(grade.pid)]

    try:
        deadline = time.monotonic() + 60
        while not its_containers() and grade.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert its_containers(), "the grade never started a container"
        grade.send_signal(sig)
        stdout, stderr = grade.communicate(timeout=60)
    finally:
        grade.kill()
    if stops:
        assert grade.returncode == 130 and stderr.strip() == "oracle: interrupted", stderr
    else:  # graded to its end: the endless delivery fails at the deadline
        assert grade.returncode == 1 and json.loads(stdout)["deciding_check"] == engine.SANDBOX_COMPLETED, stderr
    assert its_containers() == []
