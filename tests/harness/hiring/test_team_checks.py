"""The team's checks decided on synthetic records: a hire the board decides on, and an agent's controls."""

from __future__ import annotations

from typing import Any

from harness.core.product_records import Agent, AgentStatus, HireApproval, Run, Task
from harness.faults.agent_controls import (
    Paused,
    Watched,
    no_new_runs,
    no_work_taken,
    pause_settled,
    work_continued,
)
from harness.hiring.approval_rules import hire_approved, hire_waits, rejected_nothing_created

QUIET = Watched(watched_s=5.2, tick_s=0.0)
LEAD = Agent(id=1, name="Avery", role="lead", reports_to=None, adapter="scripted", model="default")


def morgan(status: AgentStatus = "active", agent_id: int = 2) -> Agent:
    return Agent(
        id=agent_id, name="Morgan", role="QA", reports_to=1, adapter="scripted", model="default", status=status
    )


def approval(status: str = "pending", agent_id: int | None = None) -> HireApproval:
    return HireApproval.model_validate({"id": 7, "name": "Morgan", "status": status, "agent_id": agent_id})


def run(run_id: int, status: str = "succeeded", agent_id: int = 1, **extra: Any) -> Run:
    return Run.model_validate(
        {
            "id": run_id,
            "task_id": 3,
            "agent_id": agent_id,
            "status": status,
            "identity": {"runner_instance_id": "r", "pid": 500, "process_start_time": 1.0},
            "queued_at": "t",
            "started_at": "t",
            "ended_at": None if status in ("queued", "running") else "t",
            "cost_cents": 0,
            "error_code": extra.get("error_code"),
            "terminal": None,
            "process_group_gone": None,
            "receipts": [],
        }
    )


def task(*runs: Run) -> Task:
    return Task.model_validate(
        {
            "id": 3,
            "title": "t",
            "status": "done",
            "assignee_id": 1,
            "assignee_name": "Avery",
            "parent_id": None,
            "updated_at": "t",
            "body": "",
            "comments": [],
            "runs": [r.model_dump() for r in runs],
            "deliveries": [],
            "children": [],
            "active_run_id": None,
            "unconsumed_user_messages": 0,
        }
    )


def test_a_hire_waits_only_as_one_pending_approval_with_nobody_able_to_work() -> None:
    assert hire_waits(approval(), [approval()], [LEAD], "Morgan").passed
    assert hire_waits(approval(), [approval()], [LEAD, morgan("pending_approval")], "Morgan").passed  # Paperclip
    assert not hire_waits(None, [], [LEAD, morgan()], "Morgan").passed  # hired at once
    assert not hire_waits(approval(), [approval()], [LEAD, morgan()], "Morgan").passed  # already working
    other = HireApproval.model_validate({"id": 8, "name": "Morgan", "status": "pending", "agent_id": None})
    assert not hire_waits(approval(), [approval(), other], [LEAD], "Morgan").passed  # asked twice


def test_an_approved_hire_is_the_one_active_agent_of_its_name() -> None:
    assert hire_approved(approval("approved", 2), [LEAD, morgan()], "Morgan").passed
    assert not hire_approved(approval("approved", 2), [LEAD], "Morgan").passed  # approved, nobody created
    assert not hire_approved(approval("approved", 2), [LEAD, morgan("pending_approval")], "Morgan").passed
    assert not hire_approved(approval("approved", 9), [LEAD, morgan()], "Morgan").passed  # another agent
    assert not hire_approved(approval("pending"), [LEAD, morgan()], "Morgan").passed


def test_a_rejected_hire_leaves_nothing_that_could_work() -> None:
    assert rejected_nothing_created(approval("rejected"), [LEAD], [LEAD], "Morgan").passed
    assert rejected_nothing_created(approval("rejected"), [LEAD], [LEAD, morgan("terminated")], "Morgan").passed
    assert not rejected_nothing_created(approval("rejected"), [LEAD], [LEAD, morgan()], "Morgan").passed
    assert not rejected_nothing_created(approval("rejected"), [LEAD], [LEAD, morgan("paused")], "Morgan").passed
    stranger = Agent(id=5, name="Quinn", role="x", reports_to=None, adapter="scripted", model="default")
    assert not rejected_nothing_created(approval("rejected"), [LEAD], [LEAD, stranger], "Morgan").passed
    assert not rejected_nothing_created(approval("pending"), [LEAD], [LEAD], "Morgan").passed


def test_pause_settles_only_as_a_cancelled_run() -> None:
    assert pause_settled(run(4, "cancelled", error_code="paused_by_user")).passed
    assert not pause_settled(run(4, "succeeded")).passed
    assert not pause_settled(run(4, "running")).passed


def test_nothing_new_and_work_continued() -> None:
    assert no_new_runs("controls.nothing-starts-while-paused", [], "while paused", QUIET).passed
    assert not no_new_runs("controls.nothing-starts-while-paused", [run(5, "running")], "while paused", QUIET).passed
    paused = Paused(agent_id=1, run_id=4, known_run_ids=[4])
    assert work_continued(task(run(4, "cancelled"), run(5)), paused).passed
    assert not work_continued(task(run(4, "cancelled")), paused).passed
    assert not work_continued(task(run(4, "cancelled"), run(5, "failed")), paused).passed
    assert not work_continued(task(run(4, "cancelled"), run(5, agent_id=2)), paused).passed  # someone else's


def test_a_terminated_agent_is_refused_work_and_runs_nothing() -> None:
    assert no_work_taken(None, [], QUIET).passed
    assert not no_work_taken(task(), [], QUIET).passed  # a task accepted for it
    assert not no_work_taken(None, [run(6, "running")], QUIET).passed


def test_a_quiet_window_shorter_than_the_products_tick_proves_nothing() -> None:
    """Five quiet seconds on a product that takes work up at a 30 s tick: it has not had its chance to start any."""
    short = Watched(watched_s=5.0, tick_s=30.0)
    assert not no_new_runs("controls.nothing-starts-while-paused", [], "while paused", short).passed
    assert not no_work_taken(None, [], short).passed
    assert not no_work_taken(None, [], Watched()).passed  # a package that never kept the window: no evidence
    assert no_work_taken(None, [], Watched(watched_s=35.1, tick_s=30.0)).passed
