"""The product records of any driver turned into the lifecycle grader's plain facts.

The grader takes string ids and plain values so that calibration can build
facts by hand; this is the one adapter between the drivers' records and it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from harness.checks.lifecycle import DeliveryFacts, LifecycleFacts, MessageFacts, RunFacts, TaskFacts
from harness.core.observable import Fact
from harness.core.product_records import READ_TOOLS, RecordId, Run, Task


def _id(value: RecordId | None) -> str | None:
    return None if value is None else str(value)


def _time(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def _received(run: Run) -> list[str] | None:
    """The message ids the run's own read receipts list; None when no read step of the runner lists ids."""
    reads = [receipt for receipt in run.receipts if receipt.tool in READ_TOOLS and "ids " in receipt.detail]
    return None if not reads else [i for receipt in reads for i in receipt.received_message_ids]


def lifecycle_facts(
    tasks: Sequence[Task],
    sent_messages: Sequence[str],
    interrupted_run_ids: Sequence[RecordId],
    lead_agent_id: RecordId | None,
    max_runs: int,
    done_statuses: Sequence[str] = ("done",),
    observes: Sequence[Fact] | None = None,
) -> LifecycleFacts:
    """Everything the grader judges, read back through the public API after the story; ``observes``: the facts
    the cell's driver declared."""
    return LifecycleFacts(
        done_statuses=list(done_statuses),
        observes=None if observes is None else list(observes),
        tasks=[
            TaskFacts(
                id=str(t.id),
                title=t.title,
                status=t.status,
                assignee_id=_id(t.assignee_id),
                parent_id=_id(t.parent_id),
                active_run_id=_id(t.active_run_id),
                unconsumed_messages=t.unconsumed_user_messages,
            )
            for t in tasks
        ],
        runs=[
            RunFacts(
                id=str(r.id),
                task_id=str(r.task_id),
                agent_id=str(r.agent_id),
                status=r.status,
                error=r.error_code,
                runner_instance_id=r.identity.runner_instance_id,
                pid=r.identity.pid,
                process_started_at=r.identity.process_start_time,
                lease=r.identity.lease.digest if r.identity.lease else None,
                ended_at=_time(r.ended_at),
                received_message_ids=_received(r),
                cause=r.cause,
            )
            for t in tasks
            for r in t.runs
        ],
        messages=[
            MessageFacts(
                id=str(c.id),
                task_id=str(c.task_id),
                body=c.body,
                consumed_by_run_id=_id(c.consumed_by_run_id),
                woke_run_ids=[str(run_id) for run_id in c.woke_run_ids],
            )
            for t in tasks
            for c in t.user_messages()
        ],
        deliveries=[
            DeliveryFacts(
                id=str(d.id),
                task_id=str(d.task_id),
                run_id=str(d.run_id),
                sha256=d.sha256,
                created_at=_time(d.created_at),
            )
            for t in tasks
            for d in t.deliveries
        ],
        sent_messages=list(sent_messages),
        interrupted_run_ids=[str(run_id) for run_id in interrupted_run_ids],
        lead_agent_id=_id(lead_agent_id),
        max_runs=max_runs,
    )
