"""The slugify-tests task in real containers: the reference suite passes, each escape is refused and decides.

Every grade here runs the delivered suite eleven times in the oracle image,
so the attempts are graded as one batch (two containers at once).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from calibration.suite_deliveries import GOOD, change
from calibration.zips import zip_bytes
from oracle import GradeJob, GradeOptions, GradeResult, grade_batch, tasks
from oracle.tasks.slugify import contract as tool
from oracle.tasks.slugify_tests import checks as ids
from oracle.tasks.slugify_tests.contract import QA_TASK
from oracle.tasks.slugify_tests.faults import FAULTS, REFERENCE_IMPLEMENTATION
from oracle.tasks.slugify_tests.judging import collector_plan
from tests.needs import marked

TASK = "slugify-tests"


def _oracle(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "oracle", *args], capture_output=True, text=True, timeout=180, env=dict(os.environ)
    )


def _with_prelude(prelude: str) -> str:
    """The reference suite that first tries `prelude` at import (any exception swallowed, as a sly suite would)."""
    body = "".join("    " + line + "\n" for line in prelude.splitlines())
    anchor = 'SCRIPT = os.path.join(HERE, "slugify.py")\n'
    return change(anchor, anchor + "try:\n" + body + "except BaseException:\n    pass\n")


ATTEMPTS: dict[str, tuple[str, str]] = {
    # name: (prelude, what the refusal names)
    "writes-outside": ("open('/tmp/marker', 'w').write('x')", "open /tmp/marker"),
    "reads-collector-memory": ("open('/proc/1/cmdline', 'rb').read()", "open /proc/1/cmdline"),
    "lists-the-oracle": ("import os\nos.listdir('/oracle')", "os.listdir /oracle"),
    "chdir-then-relative": ("import os\nos.chdir('/oracle')\nopen('plan.json').read()", "/oracle"),
    "symlink-out": ("import os\nos.symlink('/oracle/plan.json', 'plan')\nopen('plan').read()", "os.symlink"),
    "forks": ("import os\nif os.fork() == 0:\n    os._exit(0)", "os.fork"),
    "runs-a-shell": ("import os\nos.system('true')", "os.system"),
    "opens-a-socket": ("import socket\nsocket.socket()", "socket."),
    "loads-ctypes": ("import ctypes\nctypes.CDLL(None)", "ctypes."),
    "walks-the-heap": ("import gc\ngc.get_objects()", "gc.get_objects"),
    "loads-native-code": (
        "import _imp, importlib.machinery as m\n_so = '/oracle/delivery/qa/evil.so'\n"
        "_imp.create_dynamic(m.ModuleSpec('evil', m.ExtensionFileLoader('evil', _so), origin=_so))",
        "import /oracle/delivery/qa/evil.so",
    ),
    "raw-fork-exec": ("import _posixsubprocess\n_posixsubprocess.fork_exec()", "subprocess.fork_exec"),
}
HONEST = """\
import tempfile
from unittest import mock
with tempfile.TemporaryDirectory() as _scratch:
    with open(os.path.join(_scratch, "note.txt"), "w") as _note:
        _note.write("scratch files in the suite's own folder are fine")
    with open(os.path.join(_scratch, "note.txt")) as _note:
        _note.read()
with mock.patch.object(sys, "argv", ["x"]):
    pass
"""


def _zip(tmp_path: Path, name: str, suite: str) -> Path:
    path = tmp_path / f"{name}.zip"
    path.write_bytes(zip_bytes({"qa/test_slugify.py": suite}))
    return path


@pytest.fixture(scope="module")
def graded(client, oracle_image, tmp_path_factory: pytest.TempPathFactory) -> dict[str, GradeResult]:
    """Every attempt, the honest scratch-file suite and the plain reference suite, graded as one batch."""
    folder = tmp_path_factory.mktemp("suites")
    suites = {name: _with_prelude(prelude) for name, (prelude, _) in ATTEMPTS.items()}
    suites["writes-into-the-channel"] = _with_prelude("import os\nos.write(3, b'{\"result\": 1} and then some\\n')")
    suites["fills-its-scratch-space"] = _with_prelude(
        "import os\nwith open('filler', 'wb') as _f:\n    for _ in range(64):\n        _f.write(bytes(1 << 20))"
    )
    suites["honest-scratch-files"] = change(
        'SCRIPT = os.path.join(HERE, "slugify.py")\n', 'SCRIPT = os.path.join(HERE, "slugify.py")\n' + HONEST
    )
    jobs = [GradeJob(zip_path=_zip(folder, name, suite), task=TASK) for name, suite in suites.items()]
    results = grade_batch(jobs, GradeOptions(workers=2))
    return dict(zip(suites, results, strict=True))


@pytest.mark.parametrize("name", ATTEMPTS)
def test_each_escape_is_refused_and_decides_on_hands_off(graded: dict[str, GradeResult], name: str) -> None:
    result = graded[name]
    decided = next(c for c in result.checks if c.id == result.deciding_check) if result.deciding_check else None
    assert decided is not None and decided.id == ids.TESTS_HANDS_OFF, result.checks
    assert ATTEMPTS[name][1] in decided.detail and "11 refused attempt(s)" in decided.detail


def test_junk_in_the_audit_channel_is_tampering(graded: dict[str, GradeResult]) -> None:
    result = graded["writes-into-the-channel"]
    assert result.deciding_check == ids.TESTS_HANDS_OFF
    assert "wrote into the oracle's audit channel" in next(c.detail for c in result.checks if not c.passed)


def test_filling_the_scratch_space_does_not_spoil_the_next_runs(graded: dict[str, GradeResult]) -> None:
    """Each run's folder is removed after it: 64 MiB written into 16 MiB of /tmp leaves the next run room to start."""
    result = graded["fills-its-scratch-space"]
    assert result.passed, [c for c in [*result.checks, *result.diagnostics] if not c.passed]


def test_the_brief_carries_the_tools_contract_and_the_rules() -> None:
    quoted = "\n".join(line[2:] if line.startswith("> ") else line.lstrip(">") for line in QA_TASK.splitlines())
    for text in (tool.BUILD_TASK, tool.REVISION_SEPARATOR, tool.LATE_REQUIREMENT_MAX_LENGTH):
        assert text in quoted
    assert "test_slugify.py" in QA_TASK and "python3 -m unittest" in QA_TASK and "Do not start processes" in QA_TASK


def test_scratch_files_in_its_own_folder_and_mock_are_not_an_escape(graded: dict[str, GradeResult]) -> None:
    result = graded["honest-scratch-files"]
    assert result.passed, [c for c in result.checks if not c.passed]


def test_cli_grades_the_reference_suite_with_every_outcome(client, tmp_path: Path) -> None:
    done = _oracle("grade", "--task", TASK, str(_zip(tmp_path, "good", GOOD)))
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["task"] == TASK and result["mode"] == "full" and result["passed"] is True
    caught = next(c for c in result["checks"] if c["id"] == ids.TESTS_CATCH_FAULTS)
    assert caught["detail"] == f"{len(FAULTS)} of {len(FAULTS)} faulty implementations caught"
    outcomes = {c["id"]: c for c in result["diagnostics"]}
    assert set(outcomes) == {ids.OUTCOME_REFERENCE, *(ids.outcome_id(f.name) for f in FAULTS)}
    assert all(c["passed"] for c in outcomes.values())
    assert outcomes[ids.OUTCOME_REFERENCE]["detail"].endswith("OK, exit 0")


def test_a_malformed_zip_is_a_failed_intake_check_not_a_crash(client, tmp_path: Path) -> None:
    path = tmp_path / "broken.zip"
    path.write_bytes(b"PK\x03\x04 not really a zip")
    done = _oracle("grade", "--task", TASK, str(path))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert json.loads(done.stdout)["deciding_check"] == "intake.readable"


@marked("docker")
@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--task", TASK, "--mode", "base"), "task 'slugify-tests' has no mode 'base'; choose one of full"),
        (("--task", "slugify_tests"), "unknown oracle task 'slugify_tests'"),
        ((), "task 'slugify' needs --mode"),
    ],
)
def test_bad_task_or_mode_is_one_line_and_exit_2(tmp_path: Path, args: tuple[str, ...], says: str) -> None:
    delivery = tmp_path / "delivery.zip"  # a path the command accepts: the task or mode is what is wrong
    delivery.write_bytes(b"not graded")
    done = _oracle("grade", *args, str(delivery))
    assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and says in done.stderr, done.stderr


def test_the_hyphenated_name_maps_to_one_folder() -> None:
    assert TASK in tasks.known() and tasks.folder(TASK) == "slugify_tests"
    assert tasks.load(TASK).name == TASK


def test_the_plan_names_no_fault_and_says_nothing_of_expectations(tmp_path: Path) -> None:
    plan = collector_plan(tmp_path)
    text = json.dumps(plan)
    assert not [f.name for f in FAULTS if f.name in text] and "reference" not in text and "expect" not in text
    assert plan["implementations"][0] == REFERENCE_IMPLEMENTATION
    assert len(set(plan["implementations"])) == len(FAULTS) + 1  # every fault really differs from the reference
