"""The records a story and its checks read from any product, in the harness's own words.

A product driver translates its API into these models; stories, fault
modules and checks import only them, never a product's JSON. They list only
the fields stories rely on, so a product change that drops one fails loudly
at the driver's boundary instead of deep inside a story.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

TaskStatus = Literal["todo", "in_progress", "in_review", "blocked", "done", "cancelled"]
RunStatus = Literal["queued", "running", "succeeded", "failed", "cancelled"]
ACTIVE_RUN_STATUSES: tuple[RunStatus, ...] = ("queued", "running")


class Record(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class Spend(Record):
    """Metered model spend; simulated (replay) cents are priced like real ones and never added to them."""

    cents: float = 0.0
    simulated_cents: float = 0.0
    calls: int = 0
    refused_calls: int = 0


class Company(Record):
    name: str
    budget_cents: int
    spend_cents: int
    spend: Spend = Spend()


class Agent(Record):
    id: int
    name: str
    role: str
    reports_to: int | None
    adapter: str
    model: str
    budget_cents: int | None = None
    spend: Spend = Spend()


class Comment(Record):
    id: int
    task_id: int
    author_kind: Literal["user", "agent"]
    agent_id: int | None
    author_name: str
    run_id: int | None
    body: str
    created_at: str
    consumed_by_run_id: int | None
    consumed_at: str | None


class Receipt(Record):
    id: str
    seq: int
    tool: str
    target: str
    ok: bool
    detail: str
    created_at: str


class RunIdentity(Record):
    runner_instance_id: str | None
    pid: int | None
    process_start_time: float | None


class Run(Record):
    id: int
    task_id: int
    agent_id: int
    status: RunStatus
    identity: RunIdentity
    queued_at: str
    started_at: str | None
    ended_at: str | None
    cost_cents: int
    error_code: str | None
    terminal: dict[str, Any] | None
    process_group_gone: bool | None
    receipts: list[Receipt]
    spend: Spend = Spend()

    @property
    def active(self) -> bool:
        return self.status in ACTIVE_RUN_STATUSES


class Delivery(Record):
    id: int
    task_id: int
    run_id: int
    sha256: str
    size: int
    files: list[str]
    created_at: str
    download_url: str


class TaskSummary(Record):
    id: int
    title: str
    status: TaskStatus
    assignee_id: int | None
    assignee_name: str | None
    parent_id: int | None
    updated_at: str


class Task(TaskSummary):
    body: str
    comments: list[Comment]
    runs: list[Run]
    deliveries: list[Delivery]
    children: list[TaskSummary]
    active_run_id: int | None
    unconsumed_user_messages: int

    @property
    def settled(self) -> bool:
        """Nothing running, nothing queued, no message waiting for the agent."""
        return self.active_run_id is None and self.unconsumed_user_messages == 0

    def user_messages(self) -> list[Comment]:
        return [c for c in self.comments if c.author_kind == "user"]

    def agent_replies(self) -> list[Comment]:
        return [c for c in self.comments if c.author_kind == "agent"]

    def running_run_that_saved(self, filename: str) -> Run | None:
        """The premise of every fault: a run still running in its runner process that has saved ``filename``."""
        return next(
            (run for run in self.runs if run.status == "running" and run.identity.pid
             and any(r.tool == "write_file" and r.target == filename for r in run.receipts)),
            None,
        )


class StopResult(Record):
    run: Run
    process_group_gone: bool


class Activity(Record):
    id: int
    at: str
    kind: str
    task_id: int | None
    run_id: int | None
    message: str
