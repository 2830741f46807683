"""The cluster's nodes as the Ray engine sees them: a name people can read, and how many cells each may run at once.

Each node declares the custom resource ``SLOTS`` when it joins (``ray start
--resources``); a cell's task asks for one slot, so a node never runs more
cells at once than it declared. A node without the resource takes no cell
(a head that only schedules, say).
"""

from __future__ import annotations

import os
import socket

from pydantic import BaseModel

SLOTS = "harness_cell_slots"
CORES_PER_CELL = 1
"""A scripted cell (its product, Chromium, the oracle's container) keeps about one core busy while it plays
(docs/cluster.md has the figures); agent CLI cells spend most of their time waiting, so one core per cell is the
conservative default for every kind."""


def slots_for(cores: int | None = None) -> int:
    """Cells a node of ``cores`` cores (this machine's by default) may run at once: at least one."""
    return max(1, (cores or os.cpu_count() or 1) // CORES_PER_CELL)


class Node(BaseModel):
    """One alive node that offers cell slots."""

    id: str
    name: str
    slots: int


def node_name(node_id: str, hostname: str) -> str:
    """The host's name with the start of Ray's node id: two nodes on one machine (a test, a demo) stay apart."""
    return f"{hostname}-{node_id[:6]}"


def this_node_name() -> str:
    """The name of the node this code runs on (inside a Ray task or actor)."""
    import ray

    return node_name(ray.get_runtime_context().get_node_id(), socket.gethostname())


def cluster_nodes() -> list[Node]:
    """The alive nodes that offer cell slots, by name."""
    import ray

    found = []
    for node in ray.nodes():
        slots = int(node.get("Resources", {}).get(SLOTS, 0))
        if node.get("Alive") and slots > 0:
            found.append(
                Node(id=node["NodeID"], name=node_name(node["NodeID"], node["NodeManagerHostname"]), slots=slots)
            )
    return sorted(found, key=lambda node: node.name)


def alive(node_id: str) -> bool:
    """Whether Ray still counts the node among the living."""
    import ray

    return any(node["NodeID"] == node_id and node.get("Alive") for node in ray.nodes())
