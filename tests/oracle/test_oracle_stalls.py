"""A machine stalled by other work does not fail an honest delivery: a command frozen past its limit is run again.

In CI, on a host busy with browsers and other grades, an honest
``python3 slugify.py 'Hello World'`` once did not finish within its 4 s, and
three reference suites with one refused escape each did not finish a run:
the grades blamed the deliveries. Here the host freezes one of the
delivery's processes (SIGSTOP, as a starved or descheduled process is) for
longer than the limit, once; the grade must still pass. A delivery that
really hangs hangs again: the calibration cases ``endless-loop`` and the
suites' time-outs keep failing.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil

from calibration.deliveries import ENDLESS, project
from calibration.sources import gated, with_main_prelude
from calibration.suite_deliveries import GOOD, change
from calibration.zips import zip_bytes
from oracle import GradeJob, GradeOptions, GradeResult, grade_batch
from oracle.checks import SANDBOX_RERAN
from oracle.engine import Engine
from oracle.sandbox import LABEL_PID
from oracle.tasks.slugify import checks as ids

LIMIT_S = 2.0
FROZEN_S = LIMIT_S + 2.0


def _in_our_containers(client: Engine, process: psutil.Process) -> bool:
    """Whether ``process`` runs in a container this test process's grade made (others' grades may run beside it)."""
    ours = [c["Id"] for c in client.containers(f"{LABEL_PID}={os.getpid()}")]
    try:
        cgroups = Path(f"/proc/{process.pid}/cgroup").read_text()
    except OSError:
        return False
    return any(container in cgroups for container in ours)


@contextmanager
def one_process_frozen(client: Engine, sign: str) -> Iterator[list[str]]:
    """While inside, the first process of this test's grade whose command line contains ``sign`` is stopped for
    FROZEN_S, then resumed; yields the list its command line is added to (empty if none was seen)."""
    frozen: list[str] = []
    done = threading.Event()

    def freeze_the_first() -> None:
        while not done.is_set():
            for process in psutil.process_iter(["cmdline"]):
                command = " ".join(process.info["cmdline"] or [])
                if sign in command and _in_our_containers(client, process):
                    try:
                        process.send_signal(signal.SIGSTOP)
                    except psutil.NoSuchProcess:
                        continue  # it finished first: the next one
                    frozen.append(command)
                    time.sleep(FROZEN_S)
                    try:
                        process.send_signal(signal.SIGCONT)
                    except psutil.NoSuchProcess:
                        pass  # killed for its time-out while frozen
                    return
            time.sleep(0.005)

    watcher = threading.Thread(target=freeze_the_first, daemon=True)
    watcher.start()
    try:
        yield frozen
    finally:
        done.set()
        watcher.join()


def _reran(result: GradeResult) -> tuple[bool, str]:
    [reran] = [c for c in result.diagnostics if c.id == SANDBOX_RERAN]
    return reran.passed, reran.detail


def _graded(
    client: Engine, tmp_path: Path, files: dict[str, str | bytes], task: str, mode: str | None = None
) -> GradeResult:
    delivery = tmp_path / "delivery.zip"
    delivery.write_bytes(zip_bytes(files))
    options = GradeOptions(command_timeout_s=LIMIT_S, workers=1)
    return grade_batch([GradeJob(zip_path=delivery, task=task, mode=mode)], options, client=client)[0]


SLOW_WHEN_RUN_AFRESH = "import sys, time\nif sys.orig_argv[1:2] and sys.orig_argv[1].endswith('slugify.py'):\n"
"""The tool's calls run as ``python3 slugify.py ...`` of their own (not forked from the collector) take a second:
time for the host to see one and freeze it, well within the limit."""


def test_a_tool_call_frozen_past_its_limit_once_is_run_again_and_passes(client, oracle_image, tmp_path: Path) -> None:
    tool = with_main_prelude(SLOW_WHEN_RUN_AFRESH + "    time.sleep(1)")
    with one_process_frozen(client, "python3 slugify.py") as frozen:
        result = _graded(client, tmp_path, project(tool), "slugify", "base")
    assert frozen, "no call of the tool was seen to freeze"
    assert result.passed, [c for c in result.checks if not c.passed]
    passed, detail = _reran(result)
    assert passed and "python3 slugify.py 'Hello World' (finished)" in detail, detail


def test_a_suite_run_frozen_past_its_limit_once_is_run_again_and_passes(client, oracle_image, tmp_path: Path) -> None:
    anchor = 'SCRIPT = os.path.join(HERE, "slugify.py")\n'
    suite = change(anchor, anchor + "import time\ntime.sleep(0.5)\n", GOOD)  # time to be seen and frozen
    with one_process_frozen(client, "/tmp/suite-") as frozen:
        result = _graded(client, tmp_path, {"qa/test_slugify.py": suite}, "slugify-tests")
    assert frozen, "no run of the suite was seen to freeze"
    assert result.passed, [c for c in result.checks if not c.passed]
    passed, detail = _reran(result)
    assert passed and "the suite's run " in detail and detail.endswith(" of 11 (the reference's is run 1) (finished)")


def test_a_tool_that_hangs_on_every_call_is_run_once_more_and_the_grade_says_so(
    client, oracle_image, tmp_path: Path
) -> None:
    """A real hang hangs again: its check fails, and one re-run (not one per call) is recorded as not finishing."""
    result = _graded(client, tmp_path, project(gated(ENDLESS, "True")), "slugify", "base")
    assert result.deciding_check == ids.BASE_CLI
    passed, detail = _reran(result)
    assert not passed and detail.count("did not finish again") == 1 and detail.count("(finished)") == 0, detail


def test_nothing_run_again_leaves_no_record(client, oracle_image, tmp_path: Path) -> None:
    result = _graded(client, tmp_path, project(), "slugify", "base")
    assert result.passed and not [c for c in result.diagnostics if c.id == SANDBOX_RERAN]
