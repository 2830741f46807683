"""`python -m oracle` as stories and reviewers call it: exit codes, one JSON object, one-line hints."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from oracle import checks as engine
from oracle.tasks.slugify import checks as ids


def _oracle(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "oracle", *args], capture_output=True, text=True, timeout=120, env={**os.environ, **(env or {})})


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


def test_missing_zip_exits_1_with_clear_detail(client, tmp_path: Path) -> None:
    done = _oracle("grade", "--mode", "base", str(tmp_path / "absent.zip"))
    assert done.returncode == 1
    assert "no file at" in json.loads(done.stdout)["checks"][0]["detail"]


def test_missing_image_exits_2_with_one_line_hint(client, good_zip: Path) -> None:
    done = _oracle("grade", "--mode", "base", str(good_zip), env={"EVERYDAY_ORACLE_IMAGE": "everyday-evals-oracle:absent"})
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
    import inspect

    from oracle import grade
    from oracle.cli import parser

    grade_parser = parser()._subparsers._group_actions[0].choices["grade"]
    flags = {a.dest for a in grade_parser._actions if a.option_strings and a.dest != "help"}
    mapping = {"task": "task", "mode": "mode", "image": "image_ref", "command_timeout": "command_timeout_s", "deadline": "deadline_s", "agent_tests": "agent_tests"}
    assert flags == set(mapping)
    assert set(mapping.values()) <= set(inspect.signature(grade).parameters)
