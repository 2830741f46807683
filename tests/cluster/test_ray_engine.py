"""`harness run --engine ray` on a real two-node Ray cluster on this machine, with real scripted cells.

The tests share one cluster (``local_cluster``: real raylets, object stores
and worker processes) and leave it as they found it: a test that needs another
node (one that is not ready, one to kill) adds it and takes it away again.
Each drives `harness run` as a person types it, in a subprocess, so a Ctrl-C
and a dead node reach it as they would. What a cell's package must look like
is read from the same scripted cells played locally elsewhere in the session
(``tests.stories.shared_plays``), not played again here.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import psutil
import pytest

from harness.core.records import AttemptRecord
from harness.core.verdicts import Verdict
from harness.results.epochs import by_cell
from harness.running.cluster.local import local_cluster, node_arguments
from harness.running.cluster.nodes import node_name
from tests.needs import needs
from tests.stories import shared_plays

pytestmark = pytest.mark.e2e

SCRIPTED = "everyday-workflows-scripted.scripted.local."
CELLS = tuple(SCRIPTED + case for case in ("stop-redirect", "build-revise", "service-decline"))
CAMPAIGN = "on-ray"
SCREENSHOT_ORDINAL = re.compile(r"^(screenshots/(?:thumbs/)?)\d+-")
PLACEHOLDER_KEY = {"ANTHROPIC_API_KEY": "placeholder-never-sent"}
"""The nodes' provider key for the cost-cap test's paid cells: a capped cell is skipped before anything could use it."""


@pytest.fixture(scope="module")
@needs("cluster")
def cluster() -> Iterator[Any]:
    """Two ready nodes, shared by the tests that leave them as they found them (the key only in the nodes' env)."""
    with ExitStack() as stack:
        keyed = stack.enter_context(pytest.MonkeyPatch.context())
        for name, value in PLACEHOLDER_KEY.items():
            keyed.setenv(name, value)  # before the nodes start: they inherit it
        started = stack.enter_context(local_cluster(nodes=2))
        keyed.undo()
        yield started


def harness_run(results: Path, cells: tuple[str, ...], *flags: str) -> subprocess.Popen[str]:
    ids = [part for cell in cells for part in ("--id", cell)]
    command = [sys.executable, "-m", "harness.cli", "run", *ids, "--results", str(results), "--campaign", CAMPAIGN]
    return subprocess.Popen(
        [*command, *flags], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={**os.environ}
    )


def records(results: Path) -> list[AttemptRecord]:
    return [
        AttemptRecord.model_validate_json(p.read_text()) for p in sorted(results.glob(f"{CAMPAIGN}/*/*/attempt.json"))
    ]


def every_package_is_whole(results: Path) -> None:
    for folder in (results / CAMPAIGN).glob("*/*"):
        if folder.is_dir():
            assert (folder / "attempt.json").is_file(), f"a half package came home: {folder}"


def package_shape(record: AttemptRecord, folder: Path) -> tuple[Any, ...]:
    """What a package says, less what differs between any two runs (ids, times, the node).

    Screenshots count by what they show, not how often: a story may take one
    twice on a course it is written to take on a loaded machine (a Stop that
    missed a run that had just ended asks for more work and shows it again).
    Checks count by whether they failed: whether one was observable at all can
    depend on the machine's pace (an invariant about work in progress is not,
    where no look of the watch fell inside a short run), never on the engine.
    """
    files = (str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file() and "logs" not in p.parts)
    entries = sorted({SCREENSHOT_ORDINAL.sub(r"\1", entry) for entry in files})
    checks = sorted({(check.id, check.failed) for check in record.checks})
    return record.verdict, checks, [d.phase for d in record.downloads], entries


def played_locally(factory: pytest.TempPathFactory) -> dict[str, tuple[AttemptRecord, Path, dict[str, Any]]]:
    """Each of CELLS as `harness run` plays it here, with the same settings: its attempt, its package and its
    figures in its campaign's summary (the session's shared plays: build-revise, the fault and the decision
    stories)."""
    plays = {
        SCRIPTED + "build-revise": shared_plays.build_revise(factory),
        SCRIPTED + "stop-redirect": shared_plays.fault_stories(factory),
        SCRIPTED + "service-decline": shared_plays.decision_stories(factory),
    }
    assert sorted(plays) == sorted(CELLS)
    found = {}
    for cell, played in plays.items():
        record, package = shared_plays.package_of(played.results, cell)
        figures = json.loads((played.results / "test" / "summary.json").read_text())["cells"][cell]
        found[cell] = (record, package, figures)
    return found


def test_cells_spread_over_the_ready_nodes_and_their_packages_match_a_local_run(
    cluster: Any, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Three cells on two ready nodes of one slot each, beside a node that is not ready: that node takes none of
    them (though it has a free slot while the third cell waits) and the run says why."""
    cells = CELLS
    on_ray = tmp_path / "ray"
    broken = cluster.add_node(**node_arguments(), env_vars={"EVERYDAY_ORACLE_IMAGE": "everyday-no-such-image:none"})
    try:
        cluster.wait_for_nodes()
        ran = harness_run(on_ray, cells, "--engine", "ray", "--ray-address", cluster.address)
        out, _ = ran.communicate()
    finally:
        cluster.remove_node(broken)
    assert ran.returncode == 0, out

    found = records(on_ray)
    assert sorted(r.cell.execution_id for r in found) == sorted(cells), "one attempt per cell, each recorded once"
    nodes = {r.provenance.node for r in found}
    ready = {node_name(node.node_id, os.uname().nodename) for node in (cluster.head_node, *cluster.worker_nodes)}
    assert nodes == ready and len(nodes) == 2, f"both ready nodes played cells, the other none: {nodes}"
    name = node_name(broken.node_id, os.uname().nodename)
    assert f"node {name} is not ready and takes no cell: the oracle cannot grade: oracle image" in out
    for node in nodes:
        assert f"on {node}" in out and f"(node {node})" in out, "progress lines and the summary name the node"
    assert "dispatch overhead per cell" in out
    every_package_is_whole(on_ray)
    local = played_locally(tmp_path_factory)
    for record in found:
        cell = record.cell.execution_id
        here, package, _ = local[cell]
        assert package_shape(record, on_ray / CAMPAIGN / cell / record.attempt) == package_shape(here, package), cell
    summary = json.loads((on_ray / CAMPAIGN / "summary.json").read_text())
    assert summary["cells"] == {cell: figures for cell, (_, _, figures) in local.items()}
    report = subprocess.run(
        [sys.executable, "-m", "harness.cli", "report", "--results", str(on_ray), "--out", str(tmp_path / "site")],
        capture_output=True,
        text=True,
    )
    assert report.returncode == 0 and "report of 3 attempt(s) (0 broken)" in report.stdout, (
        report.stdout + report.stderr
    )


def test_a_node_killed_mid_cell_is_recorded_once_and_its_cell_retried_on_the_other(
    cluster: Any, tmp_path: Path
) -> None:
    """Three cells on two nodes of one slot each: the worker node dies once the first cell is home, while it plays
    a cell (its first, or the third, which the queue still held when its slot came free). A new worker node takes
    its place afterwards, so the cluster is as the other tests found it."""
    worker = next(iter(cluster.worker_nodes))
    victim = node_name(worker.node_id, os.uname().nodename)
    try:
        ran = harness_run(
            tmp_path, CELLS, "--engine", "ray", "--ray-address", cluster.address, "--max-automatic-retries", "1"
        )
        assert ran.stdout is not None
        lines = []
        for line in ran.stdout:  # the first cell home: both nodes were busy, and the queue still holds a cell
            lines.append(line)
            if line.startswith("[1/"):
                break
        cluster.remove_node(worker, allow_graceful=False)
        rest, _ = ran.communicate()
    finally:
        if worker in cluster.worker_nodes:
            cluster.remove_node(worker, allow_graceful=False)
        cluster.add_node(**node_arguments(), env_vars=PLACEHOLDER_KEY)  # as the fixture's nodes have it
        cluster.wait_for_nodes()
    out = "".join(lines) + rest
    assert ran.returncode == 0, out

    found = records(tmp_path)
    lost = [r for r in found if r.verdict is Verdict.INFRASTRUCTURE_FAILED]
    assert len(lost) == 1, out
    assert f"node {victim} died" in lost[0].reason and lost[0].provenance.node == victim
    retry = [r for r in found if r.retry_of == lost[0].attempt]
    # the retry passed only after the harness recovered from the lost node: a pass, shown apart
    assert len(retry) == 1 and retry[0].verdict is Verdict.PASSED_WITH_RECOVERY and retry[0].provenance.node != victim
    ends = by_cell(found)
    assert sorted(ends) == sorted(CELLS)
    assert all(len(cell_ends) == 1 and cell_ends[0].verdict.is_pass for cell_ends in ends.values()), out
    every_package_is_whole(tmp_path)


def _cell_workers_and_what_they_started() -> list[psutil.Process]:
    """Every cell worker a Ray worker of this machine started, and each process under it (products, browsers)."""
    found = []
    for process in psutil.process_iter(["cmdline"]):
        cmdline = " ".join(process.info["cmdline"] or [])
        try:
            parent = process.parent()
            above = " ".join(parent.cmdline()) if parent is not None else ""
            under_ray = "ray::" in above or "default_worker.py" in above
        except psutil.Error:
            continue
        if "harness.running.cell_worker" in cmdline and under_ray:
            found += [process, *process.children(recursive=True)]
    return found


def _products(processes: list[psutil.Process]) -> list[psutil.Process]:
    """The testbed controllers among them: each is forked from its cell worker's forkserver."""
    found = []
    for process in processes:
        try:
            parent = process.parent()
            if parent is not None and "forkserver" in " ".join(parent.cmdline()):
                found.append(process)
        except psutil.Error:
            continue
    return found


def test_ctrl_c_cancels_every_remote_cell_and_leaves_nothing_running(cluster: Any, tmp_path: Path) -> None:
    # A slow scripted agent: both cells are still playing when Ctrl-C comes.
    ran = harness_run(tmp_path, CELLS[:2], "--engine", "ray", "--ray-address", cluster.address, "--pace", "3")
    assert ran.stdout is not None
    for line in ran.stdout:
        if line.startswith("cluster:"):
            break
    started: list[psutil.Process] = []
    while ran.poll() is None and len(_products(started)) < 2:  # both cells are playing, each with its product
        time.sleep(0.5)
        started = _cell_workers_and_what_they_started()
    ran.send_signal(signal.SIGINT)
    out, _ = ran.communicate()
    assert ran.returncode == 130, out
    assert "cancelling 2 remote cell(s)" in out
    found = records(tmp_path)
    # What each node kept came home: the cell Ctrl-C cut short marked interrupted; one that had just ended before
    # the signal reached its node keeps its own verdict.
    assert len(found) == 2 and any(r.interrupted for r in found), out
    assert all(r.interrupted or r.verdict is Verdict.PASSED for r in found), out
    every_package_is_whole(tmp_path)
    _, alive = psutil.wait_procs(started, timeout=120)
    assert not alive, f"left running: {[p.cmdline() for p in alive]}"


def test_a_cost_cap_reached_through_one_node_stops_paid_cells_on_every_node(cluster: Any, tmp_path: Path) -> None:
    """The ledger says a cell on some node spent 150 cents against a cap of 100: a paid cell starts on no node.

    The nodes' key is a placeholder (``PLACEHOLDER_KEY``). The Ray driver runs in a process of its own
    (``tests.cluster.spent_elsewhere``)."""
    driver = [sys.executable, "-m", "tests.cluster.spent_elsewhere", cluster.address, str(tmp_path), CAMPAIGN]
    ran = subprocess.run(driver, capture_output=True, text=True, cwd=Path(__file__).parents[2], timeout=600)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    nodes = json.loads(ran.stdout.strip().splitlines()[-1])
    found = records(tmp_path)
    assert {r.provenance.node for r in found} == set(nodes) and len(nodes) == 2
    for record in found:
        assert record.verdict is Verdict.SKIPPED
        assert record.reason.startswith("campaign cost limit reached: 150 of 100 cents"), record.reason
