"""Stop, then a change of direction: what the user saw, what the product stored, what the disk says.

The workspace hashes are taken once the stopped runner's process group has
exited (checked by the harness itself, not only the product's word) and again
after the new answer: anything still writing after Stop changes them.
"""

from __future__ import annotations

from pydantic import BaseModel

from harness.products.testbed.api import Task
from harness.core.records import CheckRecord


class StopRecord(BaseModel):
    """The Stop the story made, kept as a snapshot in the package."""

    run_id: int
    pid: int | None
    product_says_group_gone: bool
    harness_saw_group_gone: bool
    requests_for_work: int = 0


class ShortReplyView(BaseModel):
    """What the user sees after a reload: the request's copies in the thread and the newest answer."""

    request_copies: int
    latest_reply: str | None
    status: str


def changed_paths(before: dict[str, str], after: dict[str, str]) -> list[str]:
    return sorted(path for path in before.keys() | after.keys() if before.get(path) != after.get(path))


def stop_checks(
    record: StopRecord,
    task: Task,
    request: str,
    nonce: str,
    view: ShortReplyView,
    workspace_after_stop: dict[str, str],
    workspace_now: dict[str, str],
) -> list[CheckRecord]:
    stopped = next((r for r in task.runs if r.id == record.run_id), None)
    stored = [c for c in task.user_messages() if c.body.strip() == request.strip()]
    replies = task.agent_replies()
    answer = replies[-1] if replies else None
    answering = next((r for r in task.runs if answer is not None and r.id == answer.run_id), None)
    earlier_active = [r.id for r in task.runs if r.active and (answering is None or r.id != answering.id)]
    changed = changed_paths(workspace_after_stop, workspace_now)
    return [
        CheckRecord(
            id="stop.process-group-gone",
            passed=record.product_says_group_gone and record.harness_saw_group_gone,
            detail=f"run {record.run_id} (pid {record.pid}): product says gone={record.product_says_group_gone}, "
                   f"no process left in its group={record.harness_saw_group_gone}",
        ),  # fmt: skip
        CheckRecord(
            id="stop.run-cancelled",
            passed=stopped is not None and stopped.status == "cancelled" and stopped.error_code == "stopped_by_user",
            detail=f"run {record.run_id} is {stopped.status if stopped else 'missing'} ({stopped.error_code if stopped else '-'})",
        ),
        CheckRecord(
            id="stop.request-stored-once",
            passed=view.request_copies == 1 and len(stored) == 1,
            detail=f"after a reload the thread shows {view.request_copies} copy(ies); the product stored {len(stored)}",
        ),
        CheckRecord(
            id="stop.reply-has-nonce",
            passed=(view.latest_reply is not None and nonce in view.latest_reply and answering is not None
                    and answering.id > record.run_id and answering.status == "succeeded"),
            detail=f"latest reply {'contains' if view.latest_reply and nonce in view.latest_reply else 'LACKS'} the nonce; "
                   f"written by run {answering.id if answering else '-'} ({answering.status if answering else '-'})",
        ),  # fmt: skip
        CheckRecord(
            id="stop.no-earlier-run-active",
            passed=not earlier_active and view.status == "done",
            detail=f"task {view.status}; earlier runs still active: {earlier_active or 'none'}",
        ),
        CheckRecord(
            id="stop.workspace-unchanged",
            passed=not changed,
            detail=f"{len(workspace_now)} files, hashes unchanged since the process group exited"
            if not changed else f"changed after Stop: {', '.join(changed)}",
        ),  # fmt: skip
    ]
