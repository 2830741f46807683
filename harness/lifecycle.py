"""Lifecycle checks shared by every story: did the work settle the way a user expects?

The grader reads plain facts (tasks, runs, user messages) rather than a
product's API objects, so any product's driver can feed it and calibration
can feed it synthetic records that each break one rule.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from pydantic import BaseModel, Field

from harness.catalog import MAX_RUN_RECORDS
from harness.records import CheckRecord

EXECUTED_STATUSES = {"running", "succeeded", "failed", "cancelled"}


class TaskFacts(BaseModel):
    id: str
    title: str = ""
    status: str
    assignee_id: str | None = None
    parent_id: str | None = None


class RunFacts(BaseModel):
    id: str
    task_id: str
    agent_id: str | None = None
    status: str
    error: str | None = None
    runner_instance_id: str | None = None
    pid: int | None = None
    process_started_at: float | None = None
    provider_work_started: bool | None = Field(
        None, description="False only when the product recorded that no agent work began"
    )

    @property
    def has_identity(self) -> bool:
        return bool(self.runner_instance_id) and self.pid is not None and self.process_started_at is not None

    @property
    def has_any_identity(self) -> bool:
        return bool(self.runner_instance_id) or self.pid is not None or self.process_started_at is not None


class MessageFacts(BaseModel):
    """A message the user sent, as the product stored it."""

    id: str
    task_id: str
    body: str
    consumed_by_run_id: str | None = None


class LifecycleFacts(BaseModel):
    tasks: list[TaskFacts]
    runs: list[RunFacts]
    messages: list[MessageFacts]
    sent_messages: list[str] = Field(default_factory=list, description="bodies the story itself sent")
    interrupted_run_ids: list[str] = Field(
        default_factory=list, description="runs the story stopped or disturbed on purpose"
    )


def _check(check_id: str, problems: list[str], ok: str) -> CheckRecord:
    return CheckRecord(id=check_id, passed=not problems, detail="; ".join(problems) if problems else ok)


def is_contention_exempt(run: RunFacts) -> bool:
    """A pre-dispatch cancellation is not agent execution only when the record proves it."""
    return run.status == "cancelled" and run.provider_work_started is False and not run.has_any_identity


def tasks_done(facts: LifecycleFacts) -> CheckRecord:
    problems = [f"task {t.id} ({t.title!r}) is {t.status}" for t in facts.tasks if t.status != "done"]
    return _check("lifecycle.tasks-done", problems, f"all {len(facts.tasks)} tasks done")


def settled(facts: LifecycleFacts) -> CheckRecord:
    problems = [f"run {r.id} is still {r.status}" for r in facts.runs if r.status in {"queued", "running"}]
    return _check("lifecycle.settled", problems, "no run queued or running")


def runner_identity(facts: LifecycleFacts) -> CheckRecord:
    problems = [
        f"run {r.id} ({r.status}) has no runner identity"
        for r in facts.runs
        if r.status in EXECUTED_STATUSES and not r.has_identity and not is_contention_exempt(r)
    ]
    return _check("lifecycle.runner-identity", problems, "every executed run carries runner id, pid and start time")


def runs_succeeded(facts: LifecycleFacts) -> CheckRecord:
    problems = []
    for run in facts.runs:
        if run.status == "succeeded" or is_contention_exempt(run):
            continue
        if run.id in facts.interrupted_run_ids and run.status == "cancelled":
            continue
        problems.append(f"run {run.id} ended {run.status}" + (f" ({run.error})" if run.error else ""))
    return _check("lifecycle.runs-succeeded", problems, "every run succeeded or was the interruption the story caused")


def messages_stored_once(facts: LifecycleFacts) -> CheckRecord:
    problems = []
    for body in facts.sent_messages:
        count = sum(1 for m in facts.messages if m.body.strip() == body.strip())
        if count != 1:
            problems.append(f"message {body[:40]!r} stored {count} times")
    return _check("lifecycle.messages-stored-once", problems, f"{len(facts.sent_messages)} sent messages stored once each")


def messages_consumed(facts: LifecycleFacts) -> CheckRecord:
    succeeded = {r.id for r in facts.runs if r.status == "succeeded"}
    problems = [
        f"message {m.id} was never consumed"
        if m.consumed_by_run_id is None
        else f"message {m.id} was consumed by run {m.consumed_by_run_id}, which did not succeed"
        for m in facts.messages
        if m.consumed_by_run_id not in succeeded
    ]
    return _check("lifecycle.messages-consumed", problems, "every user message consumed by a successful run")


def bounded_runs(facts: LifecycleFacts) -> CheckRecord:
    count = len(facts.runs)
    problems = [f"{count} run records exceed the bound of {MAX_RUN_RECORDS}"] if count > MAX_RUN_RECORDS else []
    return _check("lifecycle.bounded-runs", problems, f"{count} run records (bound {MAX_RUN_RECORDS})")


LIFECYCLE_CHECKS: tuple[Callable[[LifecycleFacts], CheckRecord], ...] = (
    tasks_done,
    settled,
    runner_identity,
    runs_succeeded,
    messages_stored_once,
    messages_consumed,
    bounded_runs,
)


def grade_lifecycle(
    facts: LifecycleFacts, checks: Iterable[Callable[[LifecycleFacts], CheckRecord]] = LIFECYCLE_CHECKS
) -> list[CheckRecord]:
    return [check(facts) for check in checks]
