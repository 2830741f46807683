"""A real Ray cluster of several nodes on this one machine: for the tests, `make cluster-demo` and the benchmark.

Each node is a real raylet with its own object store and worker processes
(``ray.cluster_utils.Cluster``), sized for a small shared machine: one CPU,
``OBJECT_STORE_BYTES`` of object store and ``slots`` cell slots per node.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from harness.running.cluster.nodes import SLOTS

OBJECT_STORE_BYTES = 200 * 1024 * 1024
"""A scripted cell's package is 1-3 MB; 200 MB holds every package in flight with room to spare."""


def node_arguments(slots: int = 1) -> dict[str, Any]:
    return {"num_cpus": 1, "resources": {SLOTS: slots}, "object_store_memory": OBJECT_STORE_BYTES}


HEAD_ARGUMENTS: dict[str, Any] = {"include_dashboard": False, "no_monitor": True, "include_log_monitor": False}
"""What the head starts beyond its node: no dashboard, no autoscaler monitor (the nodes are fixed) and no log
monitor (every driver of the harness joins with ``log_to_driver=False``, so no worker's output is streamed)."""


@contextmanager
def local_cluster(nodes: int = 2, slots: int = 1) -> Iterator[Any]:
    """A started ``ray.cluster_utils.Cluster`` of ``nodes`` nodes (its ``address`` to join); shut down after."""
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={**HEAD_ARGUMENTS, **node_arguments(slots)})
    try:
        for _ in range(nodes - 1):
            cluster.add_node(**node_arguments(slots))
        cluster.wait_for_nodes()
        yield cluster
    finally:
        cluster.shutdown()
