"""Calibration's cells on a cluster: the cell workers' ``play(settings) -> Played``, each call one Ray task.

``python -m calibration --engine ray`` plays its story cells through this
instead of local cell workers: the same settings, the same node-side play
(``remote.play_cell``), the packages brought home into the folder the
settings name. Calibration needs every node ready (its rows must not depend
on which node a case landed on), so a node that is not ready stops it at once.
"""

from __future__ import annotations

import threading
from typing import Any

import ray
from ray.exceptions import RayError

from harness.core.catalog import Cell
from harness.core.settings import RunSettings
from harness.running.cell_worker import Played
from harness.running.cluster.engine import connect, loss_reason, ready_nodes
from harness.running.cluster.nodes import Node, cluster_nodes
from harness.running.cluster.remote import NodeResult, play_cell
from harness.running.cluster.transfer import unpack_home


class NodesNotReady(Exception):
    """Some node of the cluster lacks what the cells need (each named above, with what it lacks)."""


class RayCells:
    """Plays settings on the cluster, one task each; Ray holds every node to its cell slots."""

    def __init__(self, address: str | None, cells: list[Cell]) -> None:
        connect(address)
        nodes = cluster_nodes()
        ready = ready_nodes(nodes, cells)
        if not nodes or len(ready) < len(nodes):
            ray.shutdown()
            raise NodesNotReady(f"{len(ready)} of {len(nodes)} node(s) with cell slots ready")
        self.nodes: list[Node] = ready
        self._stop = threading.Event()
        self._inflight: set[Any] = set()
        self._lock = threading.Lock()

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def play(self, settings: RunSettings) -> Played:
        """Play on some node, bring its packages home into ``settings.results``; a lost node is an error, not a hang."""
        with self._lock:
            if self._stop.is_set():
                return Played(error="not played: the cells were told to stop")
            ref = play_cell.remote(settings.model_dump_json(), 0, None)
            self._inflight.add(ref)
        try:
            result: NodeResult = ray.get(ref)
        except RayError as error:
            return Played(error=loss_reason(error, "(the one it ran on)"))
        finally:
            with self._lock:
                self._inflight.discard(ref)
        unpack_home(result.package, settings.results / settings.campaign)
        return result.played

    def interrupt(self) -> None:
        """Ctrl-C: start no further cell and cancel those playing (each ends as interrupted on its node)."""
        self._stop.set()
        with self._lock:
            for ref in self._inflight:
                ray.cancel(ref)

    def close(self) -> None:
        ray.shutdown()
