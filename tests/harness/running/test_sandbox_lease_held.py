"""A lease held past the release allowance is named during the waits, and concluding gives it no second allowance."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from harness.core.product_records import Run, Task
from harness.running.sandbox_watch import RELEASE_WAIT_S, SandboxWatch

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
