"""The sandbox checks see a sandbox whose run ended before any wait of the story looked: it was inspected as the
engine started it. A sandbox nobody inspected still fails ``sandbox.contained``: nothing was observed. A lease held
past the release allowance is named during the waits, and concluding gives it no second allowance."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from harness.core.product_records import RecordId, Run, RunLease, Task, TaskSummary
from harness.core.sandbox_config import ContainerConfig
from harness.running.sandbox_watch import RELEASE_WAIT_S, SandboxWatch

SANDBOX = "f" * 64
CONTAINED = ContainerConfig(
    network_mode="none",
    user="65534:65534",
    cap_drop=["ALL"],
    security_opt=["no-new-privileges"],
    env_names=["HOME", "TESTBED_RUN_TOKEN"],
    given_env=["HOME", "TESTBED_RUN_TOKEN"],
)


class ShortRun:
    """An instance whose one sandbox starts (the engine says so to whoever follows) and is gone before the
    journey's first look; the product's API then shows its run succeeded with the lease released."""

    def __init__(self, announced: bool) -> None:
        self.announced = announced
        self.exists = False

    def containers(self) -> list[dict[str, Any]]:
        return []

    def sandbox_config(self, sandbox_id: str) -> ContainerConfig | None:
        return CONTAINED if self.exists and sandbox_id == SANDBOX else None

    def following_sandboxes(self, started: Callable[[str], None]) -> AbstractContextManager[None]:
        @contextmanager
        def following() -> Iterator[None]:
            self.exists = True  # the engine starts the sandbox
            if self.announced:
                started(SANDBOX)
            self.exists = False  # its run ends and the product removes it
            yield

        return following()

    # the product's API, after the work
    def tasks(self) -> list[TaskSummary]:
        return [TaskSummary.model_validate(TASK)]

    def runs(self) -> list[Run]:
        return [Run.model_validate(RUN)]

    def task(self, task_id: RecordId) -> Task:
        return Task.model_validate({**TASK, "runs": [RUN]})

    def delivery_bytes(self, delivery_id: RecordId) -> bytes:
        raise AssertionError("nothing was delivered")

    def workspace_hashes(self, task_id: RecordId) -> dict[str, str]:
        raise AssertionError("nothing was delivered")


LEASE = RunLease(sandbox="container", sandbox_id=SANDBOX, started_at="t0", image_digest="sha256:0", active=False)
RUN = {
    "id": 1,
    "task_id": 1,
    "agent_id": 1,
    "status": "succeeded",
    "identity": {"runner_instance_id": "r", "pid": None, "process_start_time": None, "lease": LEASE.model_dump()},
    "queued_at": "t0",
    "started_at": "t0",
    "ended_at": "t1",
    "cost_cents": 0,
    "error_code": None,
    "terminal": None,
    "process_group_gone": None,
    "receipts": [],
}
TASK = {
    "id": 1,
    "title": "Write down how we write release notes",
    "status": "done",
    "assignee_id": 1,
    "assignee_name": "Avery",
    "parent_id": None,
    "updated_at": "t1",
    "body": "",
    "comments": [],
    "deliveries": [],
    "children": [],
    "active_run_id": None,
    "unconsumed_user_messages": 0,
}


def concluded(instance: ShortRun) -> dict[str, Any]:
    watch = SandboxWatch(instance)
    with watch.following():
        watch.sample(instance.runs())  # the story's first wait: the run is over, its sandbox gone
    return {check.id: check for check in watch.conclude(instance, delivered=False)}


def test_a_sandbox_gone_before_the_first_wait_is_judged_as_the_engine_started_it() -> None:
    checks = concluded(ShortRun(announced=True))
    assert checks["sandbox.contained"].passed, checks["sandbox.contained"].detail
    assert checks["sandbox.contained"].detail.startswith("1 sandbox(es) reach only")
    assert checks["sandbox.released"].passed and "sandbox.workspace-returned" not in checks


def test_a_sandbox_no_look_saw_fails_containment_as_unobserved() -> None:
    contained = concluded(ShortRun(announced=False))["sandbox.contained"]
    assert not contained.passed and contained.unobservable


T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def ended_run(active_lease: bool, ended_s: float | None = 0.0) -> Run:
    lease = {
        "sandbox": "docker",
        "sandbox_id": "c0ffee",
        "started_at": T0.isoformat(),
        "image_digest": "sha256:1",
        "active": active_lease,
    }
    return Run.model_validate(
        {
            "id": 1,
            "task_id": 1,
            "agent_id": 1,
            "status": "succeeded" if ended_s is not None else "running",
            "identity": {"runner_instance_id": "r", "pid": None, "process_start_time": None, "lease": lease},
            "queued_at": T0.isoformat(),
            "started_at": T0.isoformat(),
            "ended_at": None if ended_s is None else (T0 + timedelta(seconds=ended_s)).isoformat(),
            "cost_cents": 0,
            "error_code": None,
            "terminal": None,
            "process_group_gone": None,
            "receipts": [],
        }
    )


def held(run: Run, after_s: float) -> tuple[SandboxWatch, Any]:
    watch = SandboxWatch(instance=None)  # type: ignore[arg-type]  the check reads records only
    return watch, watch.held_past_allowance([Task.model_construct(runs=[run])], T0 + timedelta(seconds=after_s))


def test_a_lease_held_past_the_allowance_fails_released_and_spends_the_allowance() -> None:
    watch, check = held(ended_run(active_lease=True), RELEASE_WAIT_S + 1)
    assert check is not None and check.id == "sandbox.released" and not check.passed
    assert "run 1" in check.detail and watch.allowance_spent


def test_a_lease_within_the_allowance_a_released_one_and_a_running_run_are_not_named() -> None:
    for run, after_s in (
        (ended_run(active_lease=True), RELEASE_WAIT_S - 1),
        (ended_run(active_lease=False), RELEASE_WAIT_S * 3),
        (ended_run(active_lease=True, ended_s=None), RELEASE_WAIT_S * 3),
    ):
        watch, check = held(run, after_s)
        assert check is None and not watch.allowance_spent
