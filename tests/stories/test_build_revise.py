"""The main job end to end: `harness run --id build-revise` on a real testbed, browser and oracle."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from harness.core.verdicts import Verdict
from tests.needs import PLAYS_CELLS, marked
from tests.stories import shared_plays
from tests.stories.harness_runs import (
    attempts,
    ctrl_c,
    declaration_gaps,
    harness_run,
    processes_naming,
    run_temp,
    wait_for,
)
from tests.stories.story_expectations import BUILD_REVISE_CHECKS

CELL, IN_A_CONTAINER = shared_plays.BUILD_REVISE


@marked(*PLAYS_CELLS)
def test_build_revise_passes_and_leaves_a_complete_evidence_package_with_the_facts_its_driver_declares(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Also on the testbed's container environment, in the same run: every fact the testbed's driver declares that
    build-revise reaches is carried by the package's records with its provenance, and no fact it does not declare is
    carried as the product's (one run for both, played once in the session: tests/stories/shared_plays.py, whose
    play asserts no product process outlived it; the versus page's test reads its local attempt)."""
    shared = shared_plays.build_revise(tmp_path_factory)
    results = shared.results
    assert f"passed                 [scripted] {CELL}" in shared.stdout, shared.stdout
    played = {record.cell.execution_id: record for record in attempts(results)}
    assert sorted(played) == sorted([CELL, IN_A_CONTAINER]), shared.stdout[-2000:]
    for cell, each in played.items():
        assert declaration_gaps(results / "test" / cell / each.attempt) == [], cell

    record = played[CELL]
    assert record.verdict is Verdict.PASSED and record.provenance.evidence_mode.value == "scripted"
    package = results / "test" / CELL / record.attempt
    check_ids = {check.id for check in record.checks}
    assert set(BUILD_REVISE_CHECKS) <= check_ids
    assert all(check.passed for check in record.checks)

    phases = {download.phase: download for download in record.downloads}
    assert set(phases) == {"build", "revision", "build-again"}
    assert phases["build"].sha256 == phases["build-again"].sha256 != phases["revision"].sha256
    assert phases["build"].oracle_mode == "base" and phases["revision"].oracle_mode == "separator"
    for download in phases.values():
        assert zipfile.is_zipfile(package / download.path)
    assert json.loads((package / "oracle/revision.json").read_text())["passed"] is True

    # The decision points (the task seen finished, twice) and the final screen; no echo of the person's own action.
    shots = [shot.rsplit("/", 1)[-1].split("-", 1)[-1] for shot in record.screenshots]
    assert shots == ["task-1-done.png", "task-1-done.png", "final.png"], shots
    assert all((package / shot).stat().st_size > 0 for shot in record.screenshots)
    # The trace: every action, and the network the context logged (written into it), without DOM snapshots.
    with zipfile.ZipFile(package / "trace.zip") as trace:
        events = [json.loads(line)["type"] for line in trace.read("trace.trace").splitlines()]
        network = [json.loads(line)["snapshot"]["request"]["url"] for line in trace.read("trace.network").splitlines()]
    assert "before" in events and "frame-snapshot" not in events, sorted(set(events))
    assert any(url.endswith("/tasks/1") for url in network), network
    assert not (package / "network.har").exists()
    assert (package / "logs/controller.log").is_file() and list((package / "logs").glob("run-*.log"))
    tasks = json.loads((package / "snapshots/tasks.json").read_text())
    assert [task["status"] for task in tasks] == ["done"] and len(tasks[0]["runs"]) == 2
    assert record.provenance.oracle_image and record.provenance.harness_digest
    assert record.provenance.product == "testbed" and (record.provenance.product_version or "").startswith("src-")
    assert record.timing.agent_run_s and record.timing.harness_overhead_s is not None


@marked(*PLAYS_CELLS)
def test_a_leaked_secret_fails_the_attempt_and_names_the_file_not_the_secret(tmp_path: Path) -> None:
    # The build task text contains "dependency-free": pretending it is a key makes the snapshots leak it.
    env = {**os.environ, "DEMO_API_KEY": "dependency-free"}
    done = harness_run(tmp_path, "--id", "build-revise", env=env)
    assert done.returncode == 1
    [record] = attempts(tmp_path)
    assert record.verdict is Verdict.FAILED
    assert "secret found in evidence" in record.reason and "snapshots/tasks.json holds a DEMO_API_KEY" in record.reason
    package = tmp_path / "test" / CELL / record.attempt
    assert all(b"dependency-free" not in path.read_bytes() for path in package.rglob("*") if path.is_file())
    assert (package / "snapshots/tasks.json.withheld").is_file()


@marked(*PLAYS_CELLS)
def test_an_oracle_without_image_is_an_infrastructure_failure_retried_once(tmp_path: Path) -> None:
    env = {**os.environ, "EVERYDAY_ORACLE_IMAGE": "everyday-evals-oracle:does-not-exist"}
    done = harness_run(tmp_path, "--id", "build-revise", "--max-automatic-retries", "1", env=env)
    assert done.returncode == 1
    first, second = attempts(tmp_path)
    assert first.verdict is second.verdict is Verdict.INFRASTRUCTURE_FAILED
    assert "oracle could not grade" in first.reason
    assert second.retry_of == first.attempt


@marked(*PLAYS_CELLS)
def test_a_paid_cell_without_credentials_is_skipped_not_run(tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if key not in {"OPENAI_API_KEY"}}
    done = harness_run(tmp_path, "--id", "everyday-workflows.runner-codex.local.build-revise", env=env)
    [record] = attempts(tmp_path)
    assert record.verdict is Verdict.SKIPPED and "OPENAI_API_KEY" in record.reason
    assert record.provenance.evidence_mode.value == "live"
    assert done.returncode == 0 and "skipped" in done.stdout


@marked(*PLAYS_CELLS)
@pytest.mark.parametrize(
    ("whole_group", "sig"),
    [(False, signal.SIGINT), (True, signal.SIGINT), (False, signal.SIGTERM)],
    ids=["harness-only", "terminal-process-group", "kill-sigterm"],
)
def test_ctrl_c_mid_story_tears_the_product_down_and_keeps_the_attempt(
    tmp_path: Path, whole_group: bool, sig: signal.Signals
) -> None:
    """A terminal's Ctrl-C signals the whole process group: the browser dies first, the verdict still says why.

    `kill` (and `timeout`) send SIGTERM instead, which once ended the harness at once: its product's
    controller, in a session of its own, ran on, and the attempt left no record.
    """
    # The product's data folder is made under TMPDIR: that is how this test recognises its processes.
    # A short one: Chromium's sockets live there too, and socket paths are limited to 108 bytes.
    temp = run_temp(tmp_path)
    temp.mkdir(parents=True, exist_ok=True)
    command = [
        sys.executable,
        "-m",
        "harness.cli",
        "run",
        "--id",
        "build-revise",
        "--results",
        str(tmp_path),
        "--campaign",
        "test",
        "--pace",
        "0.5",
    ]
    env = {**os.environ, "TMPDIR": str(temp)}
    harness = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, start_new_session=whole_group
    )
    wait_for(lambda: processes_naming(temp, showing="--workspace"), "a runner")
    output = ctrl_c(harness, whole_group, sig)
    assert harness.returncode == 128 + sig, output
    [record] = attempts(tmp_path)
    assert record.verdict is Verdict.INFRASTRUCTURE_FAILED and "interrupted" in record.reason and record.interrupted
    assert ("SIGTERM" in record.reason) is (sig is signal.SIGTERM), record.reason
    assert processes_naming(temp) == [], "processes of the product outlived Ctrl-C"
    # One screen a person can act on: the cell's line, the summary, the evidence; nothing of pytest, no traceback.
    for noise in ("Traceback", "KeyboardInterrupt", "Error", "!!!", "warnings summary", "never retrieved"):
        assert noise not in output, output
    package = tmp_path / "test" / record.cell.execution_id / record.attempt
    assert re.search(rf"\[1/1\] interrupted +{re.escape(record.cell.execution_id)} ", output), output
    assert f"evidence: {package}" in output, output
    assert f"stopped by {'SIGTERM' if sig is signal.SIGTERM else 'Ctrl-C'}: nothing left running" in output, output
    assert (package / "index.html").is_file()
