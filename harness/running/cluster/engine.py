"""The driver of `harness run --engine ray`: the campaign's cells as Ray tasks, their packages brought home.

Ray does the distributed work: it places each task on the node it is
pinned to, holds a node to the cell slots it declared, carries each package
home through its object store, and says when a node died. This module only
decides which ready node gets the next cell (the one with the most free
slots: a node that is not ready takes none), brings each package home, and
records what was lost.

- A node lost mid-cell (it died, or its worker did): the cell's attempt is
  recorded here as ``infrastructure_failed``, naming the node, and the cell
  runs again on a ready node when the usual rule allows one automatic retry.
  Nothing of the lost attempt comes home, so no verdict is recorded twice
  and no half package lands in the campaign.
- Ctrl-C (or SIGTERM): every remote cell is cancelled; each node ends its
  cell as interrupted, stops its product and browser, and sends home what it
  kept. The run waits for that before it exits.
- The driver's own death: every package home is final on disk; ``--resume``
  plays the rest, on this cluster or another.
"""

from __future__ import annotations

import logging
import os
import socket
import statistics
import sys
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import ray
from ray.exceptions import NodeDiedError, RayError, TaskUnschedulableError
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from harness.core.catalog import Cell
from harness.core.records import AttemptRecord
from harness.core.settings import RunSettings
from harness.results.epochs import complete_epochs, epoch_ends
from harness.results.packages import read_package
from harness.running import interrupt
from harness.running.attempt import AttemptContext, run_attempt
from harness.running.campaign import announce, conclude
from harness.running.cluster.ledger import CostLedger
from harness.running.cluster.nodes import Node, alive, cluster_nodes
from harness.running.cluster.readiness import Readiness, needs_of
from harness.running.cluster.remote import NodeResult, play_cell, readiness
from harness.running.cluster.transfer import unpack_home
from harness.running.cost_limit import campaign_spent_cents
from harness.running.selection import select

READINESS_WAIT_S = 120.0
"""A node's first task starts a Ray worker and the readiness check starts Playwright's driver: seconds, not minutes."""
CONNECT_PROBE_S = 5.0
STOP_WAIT_S = 120.0
"""How long a Ctrl-C waits for the nodes to end their cells; within the 150 s the interrupt watchdog allows."""


class ClusterUnavailable(Exception):
    """No Ray cluster answered at the address given (or found): one line, nothing played."""


class NodeLost(Exception):
    """The node that held a cell was lost (or could not play it); nothing of its attempt came home."""


@dataclass
class Job:
    """One attempt of one cell to play (an epoch), or the retry of one a lost node held."""

    cell: Cell
    retry_of: str | None = None


@dataclass
class Dispatched:
    job: Job
    node: Node
    submitted: float


def _answers(address: str) -> bool:
    """Whether something listens at ``host:port``: Ray's own connect retries an address nobody answers for minutes."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        return True  # "auto", "ray://...": Ray says itself what is wrong with them
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_PROBE_S).close()
    except OSError:
        return False
    return True


def connect(address: str | None) -> None:
    """Join the cluster at ``address`` (else $RAY_ADDRESS, else the one running on this machine)."""
    target = address or os.environ.get("RAY_ADDRESS") or "auto"
    if not _answers(target):
        raise ClusterUnavailable(f"no Ray cluster at {target}: nothing answers there")
    try:
        ray.init(address=target, logging_level=logging.WARNING, log_to_driver=False, configure_logging=False)
    except (ConnectionError, RuntimeError, ValueError) as error:
        raise ClusterUnavailable(f"no Ray cluster at {target}: {str(error).strip().splitlines()[0]}") from None


def _pinned(node: Node) -> NodeAffinitySchedulingStrategy:
    return NodeAffinitySchedulingStrategy(node_id=node.id, soft=False)


def ready_nodes(nodes: list[Node], cells: list[Cell]) -> list[Node]:
    """The nodes whose readiness check found nothing missing; each other node is named with what it lacks."""
    needs = needs_of(cells)
    refs = [readiness.options(scheduling_strategy=_pinned(node)).remote(needs) for node in nodes]
    ready = []
    for node, ref in zip(nodes, refs, strict=True):
        try:
            answer: Readiness = ray.get(ref, timeout=READINESS_WAIT_S)
        except (RayError, TimeoutError) as error:
            answer = Readiness(node=node.name, missing=[f"its readiness check did not answer ({type(error).__name__})"])
        if answer.ready:
            ready.append(node)
        else:
            print(f"node {node.name} is not ready and takes no cell: {'; '.join(answer.missing)}")
    return ready


def jobs_of(settings: RunSettings, cells: list[Cell]) -> list[Job]:
    """One job per attempt the campaign still needs: every epoch, or on a resume those not complete at home."""
    home = settings.results / settings.campaign
    jobs = []
    for cell in cells:
        done = complete_epochs(home / cell.execution_id) if settings.resume else 0
        jobs += [Job(cell) for _ in range(max(0, settings.epochs - done))]
    return jobs


def _held(settings: RunSettings, cell: Cell) -> int:
    folder = settings.results / settings.campaign / cell.execution_id
    return sum(1 for child in folder.iterdir() if child.is_dir()) if folder.is_dir() else 0


@contextmanager
def _lost(reason: str) -> Iterator[Any]:
    raise NodeLost(reason)
    yield  # pragma: no cover  a generator, never reached


def record_loss(settings: RunSettings, job: Job, node: Node, reason: str) -> AttemptRecord:
    """The lost attempt, written home as every attempt is: ``infrastructure_failed`` (``NodeLost``), naming the node."""
    here = settings.model_copy(update={"node": node.name, "resume": None})

    def journey(context: AttemptContext) -> Any:
        return _lost(reason)

    return run_attempt(job.cell, here, journey, None, job.retry_of)


def node_died(error: BaseException, node_id: str) -> bool:
    """Whether the node a cell's task ended on without a package is dead.

    The error alone does not always say so: a cell that finished just before
    its node died leaves its package in that node's object store, and Ray
    reports the lost object (``ObjectReconstructionFailedError``), not the node.
    """
    return isinstance(error, NodeDiedError | TaskUnschedulableError) or not alive(node_id)


def loss_reason(error: BaseException, node: str, died: bool = False) -> str:
    """Why a cell's task ended without a package, naming the node (``died``: it is known dead)."""
    if isinstance(error, NodeDiedError):
        return f"node {node} died mid-cell; nothing of the attempt came home"
    if isinstance(error, TaskUnschedulableError):  # it died after the cell was sent, before the cell started
        return f"node {node} died before the cell started there"
    first = (str(error).strip().splitlines() or [type(error).__name__])[0]
    if died:
        return f"node {node} died before the cell came home ({type(error).__name__}: {first})"
    return f"node {node} lost the cell ({type(error).__name__}: {first})"


class Campaign:
    """The dispatch loop's state: the jobs left, the free slots of each ready node, the cells in flight."""

    def __init__(self, settings: RunSettings, nodes: list[Node], ledger: Any) -> None:
        self.settings = settings
        self.ledger = ledger
        self.queue = deque(jobs_of(settings, select(ids=settings.cells)))
        self.nodes = {node.id: node for node in nodes}
        self.free = {node.id: node.slots for node in nodes}
        self.inflight: dict[Any, Dispatched] = {}
        self.total = len(self.queue)
        self.done = 0
        self.overheads: list[float] = []
        self.ran_on: set[str] = set()

    def _freest(self) -> Node | None:
        best = max(self.free, key=lambda node_id: self.free[node_id], default=None)
        return self.nodes[best] if best is not None and self.free[best] > 0 else None

    def dispatch(self) -> None:
        """Give queued jobs to ready nodes with a free slot."""
        while self.queue and (node := self._freest()) is not None:
            job = self.queue.popleft()
            one = self.settings.model_copy(
                update={"cells": (job.cell.execution_id,), "attempts": 1, "retry_of": job.retry_of}
            )
            ref = play_cell.options(scheduling_strategy=_pinned(node)).remote(
                one.model_dump_json(), _held(self.settings, job.cell), self.ledger
            )
            self.free[node.id] -= 1
            self.inflight[ref] = Dispatched(job, node, time.monotonic())

    def play(self) -> None:
        """Until every job has an ending at home, or no ready node is left for those that remain."""
        while self.queue or self.inflight:
            self.dispatch()
            if not self.inflight:
                print(f"no ready node is left: {len(self.queue)} attempt(s) not played")
                return
            finished, _ = ray.wait(list(self.inflight), num_returns=1, timeout=1.0)
            for ref in finished:
                self.receive(ref)

    def receive(self, ref: Any) -> None:
        """Bring one finished task home: its packages, or the record of what was lost (and its retry, if due)."""
        sent = self.inflight.pop(ref)
        node, job = sent.node, sent.job
        try:
            result: NodeResult = ray.get(ref)
        except RayError as error:
            died = node_died(error, node.id)
            if died:
                self.free.pop(node.id, None)  # a dead node takes no further cell
            elif node.id in self.free:
                self.free[node.id] += 1
            self.lost(job, node, loss_reason(error, node.name, died))
            return
        self.free[node.id] += 1
        records = self.bring_home(result)
        if not records:
            self.lost(
                job, node, f"node {node.name} could not play the cell: {result.played.error or 'no package came home'}"
            )
            return
        self.overheads.append(time.monotonic() - sent.submitted - result.play_s)
        self.ran_on.add(node.name)
        self.progress(epoch_ends(records)[-1], node, time.monotonic() - sent.submitted)

    def bring_home(self, result: NodeResult) -> list[AttemptRecord]:
        home = self.settings.results / self.settings.campaign
        arrived = unpack_home(result.package, home)
        return [record for folder in arrived if (record := read_package(self.settings.results, folder).record)]

    def lost(self, job: Job, node: Node, reason: str) -> None:
        record = record_loss(self.settings, job, node, reason)
        self.progress(record, node, 0.0)
        if job.retry_of is None and job.cell.automatic_retries(self.settings.max_automatic_retries):
            self.queue.appendleft(Job(job.cell, retry_of=record.attempt))
            self.total += 1

    def progress(self, record: AttemptRecord, node: Node, seconds: float) -> None:
        """One line per attempt home, as the local engine prints one per cell, with the node that played it."""
        self.done += 1
        label = "interrupted" if record.interrupted else record.verdict.value
        took = f" ({seconds:.1f} s)" if seconds else ""
        print(f"[{self.done}/{self.total}] {label:<21} {record.cell.execution_id}{took} on {node.name}", flush=True)

    def cancel(self) -> None:
        """Ctrl-C: cancel every remote cell, wait for the nodes to end them (their kept evidence comes home)."""
        print(f"\ninterrupted ({interrupt.stopped_by()}): cancelling {len(self.inflight)} remote cell(s)", flush=True)
        for ref in self.inflight:
            ray.cancel(ref)
        finished, left = ray.wait(list(self.inflight), num_returns=len(self.inflight), timeout=STOP_WAIT_S)
        for ref in finished:
            sent = self.inflight.pop(ref)
            try:
                records = self.bring_home(ray.get(ref))
            except RayError:
                continue
            if records:
                self.progress(epoch_ends(records)[-1], sent.node, time.monotonic() - sent.submitted)
        for ref in left:
            ray.cancel(ref, force=True)

    def figures(self) -> str:
        """Where the cells ran and what dispatching them cost (round trip less the node's own play time)."""
        if not self.overheads:
            return "ray: no cell came home"
        median, worst = statistics.median(self.overheads), max(self.overheads)
        nodes = ", ".join(sorted(self.ran_on))
        return (
            f"ray: {len(self.overheads)} attempt(s) home from {len(self.ran_on)} node(s) ({nodes});"
            f" dispatch overhead per cell: median {median:.2f} s, max {worst:.2f} s"
        )


def run_on_ray(settings: RunSettings) -> int:
    """`harness run --engine ray`: play the settings' cells on the cluster, then print and write the summary."""
    announce(settings, where=" on Ray")
    try:
        connect(settings.ray_address)
    except ClusterUnavailable as error:
        print(f"harness: {error}", file=sys.stderr)
        return 2
    interrupt.install()  # after Ray's own set-up: kill and a closed terminal cancel the remote cells as Ctrl-C does
    interrupted = False
    campaign: Campaign | None = None
    try:
        nodes = cluster_nodes()
        print(f"cluster: {len(nodes)} node(s) with cell slots: " + ", ".join(f"{n.name} ({n.slots})" for n in nodes))
        ready = ready_nodes(nodes, select(ids=settings.cells))
        if not ready:
            print("no node of the cluster is ready: no cell played")
        else:
            ledger = CostLedger.remote(campaign_spent_cents(settings.results, settings.campaign))  # type: ignore[attr-defined]
            campaign = Campaign(settings, ready, ledger)
            campaign.play()
    except KeyboardInterrupt:
        interrupted = True
        if campaign is not None:
            campaign.cancel()
    finally:
        if campaign is not None:
            print(campaign.figures())
        ray.shutdown()
    _, status = conclude(settings)
    return 130 if interrupted else status
