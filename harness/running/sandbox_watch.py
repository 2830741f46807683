"""What the harness checks of runners in sandboxes (the ``container`` environment), by its own look at the engine.

A sandboxed run's identity is its lease, read through the product's API. The
harness holds the product to what a sandbox must do and checks it on facts
it gathers itself:

- ``sandbox.contained``: each leased sandbox, inspected on the engine as
  the engine starts it (a thread follows the instance's start events from
  the journey's start, so a run that ends before the story's next wait is
  still seen; else the first time a wait sees its run running), reaches
  nothing beyond the controller's agent socket: no network, no other mount,
  and nothing else of its whole configuration opens a way out
  (:mod:`harness.checks.containment`);
- ``sandbox.released``: once the work is over, every lease is released and
  the engine holds no container of the instance that still runs. A run that
  ended longer than that allowance ago and still holds its lease fails it
  during the story's waits already (a held lease can keep the next run
  queued, and the story would otherwise wait for it until its deadline);
- ``sandbox.workspace-returned``: each task's workspace, as the product lists
  it after the work, holds every file of the task's latest delivery with the
  bytes the delivered ZIP has (a workspace left in the sandbox is not there),
  and at least one delivered file was compared. It is judged where the person
  downloaded work; a story that delivers nothing (a skill written in Studio,
  work stopped before it ended) has no workspace to bring back.

The evidence names a lease by its digest (``RunLease.digest``), never the
raw sandbox id.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from harness.checks.containment import beyond_the_sandbox, contained
from harness.checks.delivery import ReturnedWorkspace, file_hashes, workspace_returned
from harness.core.product_records import RecordId, Run, RunIdentity, Task, TaskSummary
from harness.core.records import CheckRecord
from harness.core.sandbox_config import ContainerConfig
from harness.core.waiting import WaitTimeout, wait_for
from harness.products.base import ProductInstance

RELEASE_WAIT_S = 30.0
"""How long after the work a product may take to bring a sandbox's workspace back and remove the sandbox."""


class SandboxApi(Protocol):
    """What the checks read through the product's API."""

    def tasks(self) -> list[TaskSummary]: ...

    def runs(self) -> list[Run]: ...

    def task(self, task_id: RecordId) -> Task: ...

    def delivery_bytes(self, delivery_id: RecordId) -> bytes: ...

    def workspace_hashes(self, task_id: RecordId) -> dict[str, str]: ...


@runtime_checkable
class SandboxedInstance(Protocol):
    """A product instance whose runners run in sandboxes the harness can look at on the engine."""

    def containers(self) -> list[dict[str, Any]]: ...

    def sandbox_config(self, sandbox_id: str) -> ContainerConfig | None: ...

    def following_sandboxes(self, started: Callable[[str], None]) -> AbstractContextManager[None]: ...


@runtime_checkable
class WatchesRunners(Protocol):
    """A product instance that can tell whether a run's runner still runs wherever it is (a process, a sandbox)."""

    def runner_alive(self, identity: RunIdentity) -> bool: ...


def runner_alive(instance: ProductInstance, run: Run) -> bool:
    """The harness's own look at the run's runner: by its lease where the instance watches sandboxes, else its pid."""
    if isinstance(instance, WatchesRunners):
        return instance.runner_alive(run.identity)
    return instance.process_alive(run.identity.pid or 0, run.identity.process_start_time or 0)


class SandboxWatch:
    """Samples the leases of running runs during waits; decides the sandbox checks once the work is over."""

    def __init__(self, instance: SandboxedInstance) -> None:
        self.instance = instance
        self.configs: dict[str, ContainerConfig] = {}  # lease digest -> the engine's record of its sandbox
        self.allowance_spent = False  # a lease was seen held past RELEASE_WAIT_S: concluding waits no longer
        self._started: dict[str, ContainerConfig] = {}  # sandbox id -> its record, read as the engine started it
        self._lock = threading.Lock()

    def following(self) -> AbstractContextManager[None]:
        """Inside, each sandbox of the instance is inspected as the engine starts it, for the leases that name it."""
        return self.instance.following_sandboxes(self._inspect_started)

    def _inspect_started(self, sandbox_id: str) -> None:
        found = self.instance.sandbox_config(sandbox_id)
        if found is not None:
            with self._lock:
                self._started.setdefault(sandbox_id, found)

    def sample(self, runs: list[Run]) -> None:
        """Each run's sandbox, once: as the engine started it, else inspected now while its run still runs
        (``runs``: every run, one request)."""
        for run in runs:
            lease = run.identity.lease
            if lease is None or lease.digest in self.configs:
                continue
            with self._lock:
                found = self._started.get(lease.sandbox_id)
            if found is None and run.status == "running":
                found = self.instance.sandbox_config(lease.sandbox_id)
            if found is not None:
                self.configs[lease.digest] = found

    def held_past_allowance(self, tasks: list[Task], now: datetime) -> CheckRecord | None:
        """The failed ``sandbox.released`` for leases still held by runs that ended over RELEASE_WAIT_S ago; else None.

        ``now`` is on the clock of the runs' ``ended_at`` (UTC). Once it has
        failed, concluding reads the leases once instead of allowing them the
        time again.
        """
        held = [
            f"run {run.id} (lease {run.identity.lease.digest[:12]}, ended {run.ended_at})"
            for task in tasks
            for run in task.runs
            if run.identity.lease
            and run.identity.lease.active
            and run.ended_at
            and (now - datetime.fromisoformat(run.ended_at)).total_seconds() > RELEASE_WAIT_S
        ]
        if not held:
            return None
        self.allowance_spent = True
        return CheckRecord(
            id="sandbox.released",
            passed=False,
            detail=f"leases still held more than {RELEASE_WAIT_S:g} s after their runs ended: {held}",
        )

    def conclude(self, api: SandboxApi, delivered: bool) -> list[CheckRecord]:
        """The checks, after the work (a lease may be released a moment after its run ended); ``delivered``:
        the person downloaded work, so the workspaces must have come back with it."""
        tasks, released = self._released(api)
        self.sample([run for task in tasks for run in task.runs])  # the leases of runs no wait saw running
        checks = [self._contained(), released]
        return [*checks, self._returned(tasks, api)] if delivered else checks

    def _contained(self) -> CheckRecord:
        return contained({digest: beyond_the_sandbox(config) for digest, config in self.configs.items()})

    def _released(self, api: SandboxApi) -> tuple[list[Task], CheckRecord]:
        def read_tasks() -> list[Task]:
            return [api.task(summary.id) for summary in api.tasks()]

        def settled() -> list[Task] | None:
            tasks = read_tasks()
            leases = [run.identity.lease for task in tasks for run in task.runs if run.identity.lease]
            return tasks if all(not lease.active for lease in leases) and not self._running() else None

        try:
            allowed_s = 0.0 if self.allowance_spent else RELEASE_WAIT_S
            tasks = wait_for(settled, timeout=allowed_s, interval=0.2, what="every sandbox released")
        except WaitTimeout:
            tasks = read_tasks()
        held = [
            f"run {run.id} (lease {run.identity.lease.digest[:12]})"
            for task in tasks
            for run in task.runs
            if run.identity.lease and run.identity.lease.active
        ]
        running = self._running()
        released = CheckRecord(
            id="sandbox.released",
            passed=not held and not running,
            detail=f"every lease released; no sandbox of the instance runs (within {RELEASE_WAIT_S:g} s of the work)"
            if not held and not running
            else f"after the work: leases still held by {held}; {len(running)} sandbox(es) of the instance running",
        )
        return tasks, released

    def _running(self) -> list[dict[str, Any]]:
        return [c for c in self.instance.containers() if c.get("State") == "running"]

    @staticmethod
    def _returned(tasks: list[Task], api: SandboxApi) -> CheckRecord:
        return workspace_returned(
            [
                ReturnedWorkspace(
                    task_id=str(task.id),
                    delivered=file_hashes(api.delivery_bytes(task.deliveries[-1].id)),
                    kept=api.workspace_hashes(task.id),
                )
                for task in tasks
                if task.deliveries
            ]
        )
