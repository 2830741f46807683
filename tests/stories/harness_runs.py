"""Helpers for tests that run story cells through the real `harness run` command."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import psutil
from pydantic import TypeAdapter

from harness.checks.observed_facts import ObservedFact, conformance_gaps
from harness.core.observable import FACTS, Fact
from harness.core.records import AttemptRecord
from harness.core.verdicts import Verdict
from harness.judging.regrade import assess
from harness.results.packages import catalog_cells
from harness.running.interrupt import STUCK_AFTER_INTERRUPT_S

WATCHDOG_FIRED = "most recent call first"
"""What Python's fault handler prints above each thread's stack."""

T = TypeVar("T")


def harness_run(
    results: Path, *args: str, env: dict[str, str] | None = None, cells: int = 1
) -> subprocess.CompletedProcess[str]:
    """Run `harness run` in a subprocess, as a user would, with its own results and temporary folders
    (``cells``: how many cells it plays, for its time limit).

    The product instances it starts keep their data under ``run_temp(results)``,
    so ``processes_of`` finds exactly this run's processes on a shared machine.
    """
    run_temp(results).mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [sys.executable, "-m", "harness.cli", "run", "--results", str(results), "--campaign", "test", *args],
        capture_output=True,
        text=True,
        timeout=600 * cells,
        env={**(env or os.environ), "TMPDIR": str(run_temp(results))},
    )
    assert_judged_again_alike(results)
    return done


def assert_judged_again_alike(results: Path) -> None:
    """Every attempt the run wrote, judged again from its package by the current rules, gives exactly the checks
    and the verdict it was written with (nothing is written: the package stays as the run left it)."""
    for path in sorted(results.glob("test/*/*/attempt.json")):
        record = AttemptRecord.model_validate_json(path.read_text())
        if record.outcome is None or record.outcome.secret_found:
            continue  # cut short before its outcome was kept, or its free text withheld with a secret
        assessment = assess(path.parent, record, catalog_cells()[record.cell.execution_id].unobservable)
        assert not assessment.changed, f"{path.parent}: judged again, these checks differ: {assessment.changed}"
        assert (assessment.verdict, assessment.reason) == (record.verdict, record.reason), path.parent


def ids(cells: list[str]) -> list[str]:
    """``--id`` for each cell (or case): one `harness run` plays them all, paying once for its Python, pytest
    and Chromium start (close to half of what a lone scripted cell costs; docs/measurements.md)."""
    return [part for cell in cells for part in ("--id", cell)]


def short_temp_root() -> Path:
    """The machine's temporary folder, not the labelled one this test process works in (tests/conftest.py).

    A `harness run` started by a test labels a folder of its own under its
    TMPDIR; nested under ours, Chromium's socket paths there would pass 108 bytes.
    """
    return Path(os.environ.get("PYTEST_DEBUG_TEMPROOT") or tempfile.gettempdir())


# Every run folder handed out, so the story tests' conftest ends and removes them all after each test.
handed_out: set[Path] = set()


def run_temp(results: Path) -> Path:
    """A short temporary folder of the run's own (Chromium's socket paths there must stay under 108 bytes)."""
    folder = short_temp_root() / f"hr-{hashlib.sha256(str(results).encode()).hexdigest()[:10]}"
    handed_out.add(folder)
    return folder


def processes_of(results: Path) -> list[psutil.Process]:
    """Live processes of the run with this results folder (product controllers, runners, helpers)."""
    return processes_naming(run_temp(results))


def containers_of(results: Path) -> set[str]:
    """The testbed runner containers on the engine, running or not, that serve a product instance of the run with
    this results folder (each attempt's timeline names its instance's data folder; a container's label holds that
    folder's digest): after the run, any is one that outlived it, whatever other runs the machine holds."""
    import docker

    from harness.testbed.sandbox.agent_socket import data_digest
    from harness.testbed.sandbox.containers import LABEL, LABEL_DATA

    started = [e.detail for r in attempts(results) for e in r.timeline if e.step == "product started"]
    ours = {data_digest(Path(detail.rsplit("data folder ", 1)[-1])) for detail in started}
    sdk = docker.from_env()
    try:
        listed = sdk.containers.list(all=True, filters={"label": LABEL})
        return {c.id for c in listed if c.labels.get(LABEL_DATA) in ours}
    finally:
        sdk.close()


def processes_naming(folder: Path, showing: str = "") -> list[psutil.Process]:
    """Live processes whose command line names ``folder`` (and shows ``showing``): the products started with their
    data under it. Read once: a process may end between the listing and a second read of its command line."""
    found = []
    for process in psutil.process_iter(["cmdline", "status"]):
        command_line = " ".join(process.info["cmdline"] or [])
        if process.info["status"] != psutil.STATUS_ZOMBIE and str(folder) in command_line and showing in command_line:
            found.append(process)
    return found


def attempts(results: Path) -> list[AttemptRecord]:
    return [
        AttemptRecord.model_validate_json(path.read_text())
        for path in sorted(results.glob("test/*/*/attempt.json"), key=lambda p: p.stat().st_mtime)
    ]


def each_passed(results: Path, cells: list[str]) -> dict[str, tuple[AttemptRecord, Path]]:
    """Play the cells (each of a case of its own; a case alone names its scripted cell) in one `harness_run`; each
    case's attempt, passed with no failed check, and its package folder. A failure names the case and shows what
    the run printed."""
    done = harness_run(results, *ids(cells), cells=len(cells))
    played = passed_by_case(results, len(cells), done.stdout)
    assert done.returncode == 0, done.stdout[-2000:]
    return played


def passed_by_case(results: Path, cells: int, printed: str) -> dict[str, tuple[AttemptRecord, Path]]:
    """Each case's one attempt in ``results`` (``cells`` in all), passed with no failed check, and its package."""
    found = attempts(results)
    played = {r.cell.case: (r, results / "test" / r.cell.execution_id / r.attempt) for r in found}
    assert len(found) == len(played) == cells, f"one attempt per case\n{printed[-2000:]}"
    for case, (record, _) in played.items():
        assert record.verdict is Verdict.PASSED, f"{case} {record.verdict}: {record.reason}\n{printed[-2000:]}"
        assert not [check.id for check in record.checks if not check.passed], case
    return played


def wait_for(probe: Callable[[], T], what: str, timeout: float = 60.0) -> T:
    """Poll ``probe`` until it returns something truthy: the tests wait for a state, never a fixed time."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if found := probe():
            return found
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def ctrl_c(harness: subprocess.Popen, whole_group: bool = False, sig: signal.Signals = signal.SIGINT) -> str:
    """Ctrl-C (or ``sig``: `kill`'s SIGTERM) to the harness alone, or to its whole process group as a terminal
    sends it; its output once it ended.

    A harness stuck after the interrupt ends itself, with every thread's stack in its output, once its
    watchdog fires; one that does not is killed soon after, so it never outlives the test that failed.
    """
    if whole_group:
        os.killpg(harness.pid, sig)
    else:
        harness.send_signal(sig)
    try:
        output, _ = harness.communicate(timeout=STUCK_AFTER_INTERRUPT_S + 30)
    finally:
        harness.kill()
    assert WATCHDOG_FIRED not in output, f"the harness was stuck after Ctrl-C; its watchdog ended it:\n{output}"
    return output


STARTED_WITHIN_S = 300.0


def _ended_early(started: subprocess.Popen) -> bool:
    """False while it runs; once it ended before the state waited for, the test fails with what it printed."""
    if started.poll() is None:
        return False
    stdout, stderr = started.communicate()
    raise AssertionError(f"it ended (exit {started.returncode}) before it got there:\n{stdout}\n{stderr}")


def stopped_mid_run(command: list[str], temp: Path, sign: str, sig: signal.Signals) -> subprocess.CompletedProcess[str]:
    """Run ``command`` with its temporary files under ``temp``; once a process of it whose command line shows
    ``sign`` is running, send ``sig``; what it printed and its exit status once it ended."""
    temp.mkdir(parents=True, exist_ok=True)
    started = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "TMPDIR": str(temp)}
    )
    try:
        # A state, not a speed: on a loaded machine a campaign's first product and runner take minutes to start.
        wait_for(
            lambda: processes_naming(temp, showing=sign) or _ended_early(started), f"a {sign} process", STARTED_WITHIN_S
        )
        started.send_signal(sig)
        stdout, stderr = started.communicate(timeout=STUCK_AFTER_INTERRUPT_S + 30)
    finally:
        started.kill()
    return subprocess.CompletedProcess(command, started.returncode, stdout, stderr)


BUILD_REVISE_FACTS: tuple[Fact, ...] = ("message-read", "message-wakes", "runner-identity", "receipts", "run-cause")
"""The facts build-revise reaches on any product: a message read, the runs that did the work and what they read.
It stops nothing and makes no skill, so it cannot show process-group-gone or task-skills."""


def declaration_gaps(package: Path, exercised: tuple[Fact, ...] = BUILD_REVISE_FACTS) -> list[str]:
    """Where a package's records and its driver's declaration part: a declared fact among ``exercised`` that no
    record carries, or an undeclared one carried as the product's (each kept fact names its provenance)."""
    kept = TypeAdapter(list[ObservedFact]).validate_json((package / "snapshots" / "facts.json").read_text())
    assert {o.fact for o in kept} == set(FACTS), "the package keeps an entry for every fact"
    assert all(o.provenance is not None for o in kept if o.carried_by), "each fact carried names its provenance"
    return conformance_gaps(kept, exercised)
