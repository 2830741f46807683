"""The Ray engine's rules that need no cluster: a lost attempt's record, the ledger's figure in the cost cap, the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest
from ray.exceptions import NodeDiedError, RayError

from harness.cli import main
from harness.core.records import AttemptRecord
from harness.core.settings import RunSettings
from harness.core.verdicts import Verdict
from harness.running.cluster import engine
from harness.running.cluster.engine import Job, loss_reason, node_died, record_loss
from harness.running.cluster.nodes import Node, slots_for
from harness.running.cost_limit import cost_limit_reason
from harness.running.selection import select

NODE = Node(id="f" * 56, name="worker-ffffff", slots=1)


def test_a_lost_attempt_is_an_infrastructure_failure_naming_its_node_and_keeps_its_retry_chain(tmp_path: Path) -> None:
    cell = select(ids=("build-revise",))[0]
    settings = RunSettings(cells=(cell.execution_id,), results=tmp_path, campaign="c")
    first = record_loss(settings, Job(cell), NODE, "node worker-ffffff died mid-cell; nothing of the attempt came home")
    again = record_loss(settings, Job(cell, retry_of=first.attempt), NODE, "node worker-ffffff died mid-cell")
    assert (
        first.verdict is Verdict.INFRASTRUCTURE_FAILED and "NodeLost: node worker-ffffff died mid-cell" in first.reason
    )
    assert first.provenance.node == "worker-ffffff" and first.retry_of is None
    assert again.retry_of == first.attempt and again.attempt.startswith("2-")
    written = tmp_path / "c" / cell.execution_id / first.attempt / "attempt.json"
    assert AttemptRecord.model_validate_json(written.read_text()) == first


@pytest.mark.parametrize("alive", [True, False])
def test_a_package_lost_with_its_node_is_the_nodes_death_whatever_ray_names(
    alive: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cell that finished just before its node died left its package there: Ray names the lost object, not the
    node. Whether the node is dead is asked of the cluster, so a dead node takes no further cell."""
    monkeypatch.setattr(engine, "alive", lambda node_id: alive and node_id == NODE.id)
    lost_object = RayError("Failed to retrieve object 00ff.\nAll copies of the object are lost.")
    assert node_died(lost_object, NODE.id) is not alive
    assert node_died(NodeDiedError("the node died"), NODE.id)
    reason = loss_reason(lost_object, NODE.name, node_died(lost_object, NODE.id))
    expected = "lost the cell" if alive else "died before the cell came home"
    assert reason == f"node {NODE.name} {expected} (RayError: Failed to retrieve object 00ff.)"


@pytest.mark.parametrize(("elsewhere", "stopped"), [(0, False), (99, False), (100, True)])
def test_what_the_cluster_spent_elsewhere_counts_against_the_cap(tmp_path: Path, elsewhere: int, stopped: bool) -> None:
    paid = select(ids=("everyday-workflows.runner-claude.local.build-revise",))[0]
    settings = RunSettings(results=tmp_path, max_cost_cents=100, spent_elsewhere_cents=elsewhere)
    reason = cost_limit_reason(paid, settings)
    assert (reason is not None) is stopped
    if stopped:
        assert reason == "campaign cost limit reached: 100 of 100 cents spent before this cell started"


def test_a_node_offers_one_slot_per_core_and_never_none() -> None:
    assert [slots_for(cores) for cores in (1, 2, 8)] == [1, 2, 8]
    assert slots_for(0) >= 1


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--headed"], "harness: --headed: the local engine's only"),
        (["--junitxml", "out.xml"], "harness: --junitxml: the local engine's only"),
        (["--ray-address", "127.0.0.1:1"], "harness: no Ray cluster at 127.0.0.1:1: nothing answers there"),
    ],
)
def test_a_ray_run_it_cannot_make_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], message: str
) -> None:
    status = main(["run", "--id", "build-revise", "--engine", "ray", "--results", str(tmp_path), *flags])
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith(message) and err.count("\n") == 1, err
