"""The node's side of `harness run --engine ray`: play one cell as the local engine does, send its packages home.

A Ray task per cell (or per attempt, with ``--attempts``). It runs in a Ray
worker process on the node, which keeps one cell worker
(``harness.running.cell_worker``: the same ``run_cell`` as `harness run`,
its own product instance, browser and oracle on this node) for the tasks it
is given. The cell plays into a scratch results folder; what comes back is
the tar of its finished packages (``transfer``).

Cancelled (the driver's Ctrl-C), the task interrupts its cell as Ctrl-C
does (the product and browser stopped, the attempt ended as interrupted),
waits for that, and only then ends: nothing is left running on the node.
Killed outright (its node died, or a forced cancel), the cell worker sees
its parent gone and does the same on its own.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import ray
from pydantic import BaseModel

from harness.core.settings import RunSettings
from harness.running.cell_worker import CellWorker, Played
from harness.running.cluster.nodes import SLOTS, this_node_name
from harness.running.cluster.readiness import Needs, Readiness, missing_here
from harness.running.cluster.transfer import lay_out_scratch, pack
from harness.running.cost_limit import campaign_spent_cents


class NodeResult(BaseModel):
    """What a cell's task sends home: the node, the packages as tar bytes, the cell worker's answer, the play time."""

    node: str
    package: bytes
    played: Played
    play_s: float


_workers: list[CellWorker] = []
"""This Ray worker process's cell worker: its Python, imports and Chromium serve every task it is given."""


def _cell_worker() -> CellWorker:
    """This process's cell worker (a new one after a cancel ended the last)."""
    if not _workers:
        _workers.append(CellWorker())
    return _workers[0]


def _play_interruptibly(worker: CellWorker, settings: RunSettings) -> Played:
    """Play in a thread while this one waits in short steps, where a cancel's KeyboardInterrupt can land.

    Cancelled, the task still returns: what the interrupted cell kept goes home, as the local engine keeps it.
    """
    answer: list[Played] = []
    thread = threading.Thread(target=lambda: answer.append(worker.play(settings)), daemon=True)
    thread.start()
    try:
        while thread.is_alive():
            thread.join(0.2)
    except KeyboardInterrupt:  # cancelled: the cell ends as interrupted, product and browser stopped, evidence kept
        worker.interrupt()
        thread.join()
        worker.close()
        _workers.clear()
    return answer[0] if answer else Played(error="interrupted before the cell worker answered")


@ray.remote(num_cpus=0, resources={SLOTS: 1}, max_retries=0)
def play_cell(settings_json: str, held: int, ledger: Any) -> NodeResult:
    """Play the cell(s) of ``settings_json`` on this node, in a scratch folder numbered on from ``held`` packages.

    ``max_retries=0``: a task lost with its node is never run again by Ray;
    the driver records it and retries under the harness's own rule.
    """
    node = this_node_name()
    scratch = Path(tempfile.mkdtemp(prefix="everyday-ray-cell-"))
    try:
        settings = RunSettings.model_validate_json(settings_json)
        spent = ray.get(ledger.spent.remote()) if settings.max_cost_cents is not None else 0
        local = settings.model_copy(
            update={"results": scratch, "node": node, "resume": None, "engine": "local", "spent_elsewhere_cents": spent}
        )
        for cell in settings.cells:
            lay_out_scratch(scratch / settings.campaign / cell, held)
        started = time.monotonic()
        played = _play_interruptibly(_cell_worker(), local)
        play_s = time.monotonic() - started
        if settings.max_cost_cents is not None:
            ledger.add.remote(campaign_spent_cents(scratch, settings.campaign))
        return NodeResult(node=node, package=pack(scratch / settings.campaign), played=played, play_s=play_s)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


@ray.remote(num_cpus=0, max_retries=0)
def readiness(needs: Needs) -> Readiness:
    """This node's readiness for the campaign's cells (pinned to the node by the driver)."""
    return Readiness(node=this_node_name(), missing=missing_here(needs))
