"""The cost-cap test's Ray driver, run in a process of its own.

A Ray driver that loses its cluster's control service under load ends its
process outright; in a subprocess that fails the test with the driver's
output, instead of taking the pytest worker down with it.

Usage: ``python -m tests.cluster.spent_elsewhere ADDRESS RESULTS CAMPAIGN``: a ledger that has 150 cents spent,
one paid cell pinned to each node with a cap of 100, every package unpacked into RESULTS/CAMPAIGN; prints the
nodes' names as a JSON list.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import ray

from harness.core.settings import RunSettings
from harness.running.cluster.engine import _pinned
from harness.running.cluster.ledger import CostLedger
from harness.running.cluster.nodes import cluster_nodes
from harness.running.cluster.remote import play_cell
from harness.running.cluster.transfer import unpack_home

PAID = "everyday-workflows.runner-claude.local.build-revise"


def main(address: str, results: Path, campaign: str) -> None:
    settings = RunSettings(cells=(PAID,), campaign=campaign, results=results, max_cost_cents=100)
    ray.init(address=address, log_to_driver=False)
    try:
        ledger = CostLedger.remote(0)  # type: ignore[attr-defined]
        ray.get(ledger.add.remote(150))
        nodes = cluster_nodes()
        refs = [
            play_cell.options(scheduling_strategy=_pinned(node)).remote(settings.model_dump_json(), 0, ledger)
            for node in nodes
        ]
        for result in ray.get(refs):
            unpack_home(result.package, results / campaign)
    finally:
        ray.shutdown()
    print(json.dumps([node.name for node in nodes]))


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]), sys.argv[3])
