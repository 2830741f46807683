"""The drain's checks: pure functions of what the drain step learned and the task as the product then records it.

Kept apart from the step (:mod:`harness.faults.drain`) so judging imports
nothing that runs or drives a product: ``harness regrade`` applies them to
saved packages.
"""

from __future__ import annotations

from datetime import UTC, datetime

from pydantic import BaseModel

from harness.core.product_records import RecordId, Run, Task
from harness.core.records import CheckRecord
from harness.faults.restart_rules import RestartSnapshot, replaced_check


class DrainRecord(BaseModel):
    """What the drain step learned: the run under the signal, before and after, and when the signal went."""

    before: RestartSnapshot
    after: RestartSnapshot
    signalled_at: datetime
    runner_gone: bool
    promise: str | None = None
    evidence: list[str] = []


def at_or_after(moment: str | None, signalled_at: datetime) -> bool:
    """A product's ISO 8601 time (naive: UTC) at or after the signal; no time at all is never after it."""
    if moment is None:
        return False
    when = datetime.fromisoformat(moment.replace("Z", "+00:00"))
    return (when if when.tzinfo else when.replace(tzinfo=UTC)) >= signalled_at


def read_before_signal(after: RestartSnapshot, late: str) -> bool:
    """The drained run's own reads name the late message: it read it before the signal reached the controller, so the
    drain had no unread message to carry over (the story's premise missed, never a verdict on the product)."""
    return any(late in receipt.received_message_ids for receipt in after.run.receipts)


def drain_checks(record: DrainRecord, task: Task) -> list[CheckRecord]:
    """The drain contract, decided on the run under the signal and the task once its work is done."""
    drained = next((r for r in task.runs if r.id == record.before.run.id), None)
    retries = [r for r in task.runs if r.id != record.before.run.id and at_or_after(r.queued_at, record.signalled_at)]
    finished = [r for r in retries if r.status == "succeeded"]
    late = str(record.before.message.id) if record.before.message else None  # read steps list ids as text
    woken = next((c.woke_run_ids for c in task.comments if str(c.id) == late), [])
    return [
        replaced_check(record.before, record.after),
        _interrupted_check(record, drained),
        CheckRecord(
            id="drain.work-retried",
            passed=bool(finished),
            detail=f"runs started after the signal: {[f'{r.id} {r.status}' for r in retries] or 'none'}",
        ),
        _received_check(late, finished, woken),
        _delivered_once_check(record, task, finished, woken),
    ]


def _interrupted_check(record: DrainRecord, drained: Run | None) -> CheckRecord:
    """The run under the signal is stopped and recorded as cut short, never as a success it did not finish."""
    if drained is None:
        return CheckRecord(id="drain.run-interrupted", passed=False, detail=f"run {record.before.run.id} is gone")
    cut_short = drained.status in ("failed", "cancelled")
    return CheckRecord(
        id="drain.run-interrupted",
        passed=cut_short and record.runner_gone,
        detail=f"run {drained.id} ended {drained.status} ({drained.error_code}; {drained.terminal}); its runner "
        f"{'was' if record.runner_gone else 'was NOT'} stopped by the shutdown",
    )


def _received_check(late: str | None, finished: list[Run], woken: list[RecordId]) -> CheckRecord:
    """The late message is not lost: a run that finished after the signal received it, by its own read steps.

    Received means the runner's own receipts list the message's id: the
    harness holds the runner's word for what reached it. A product's record
    that it woke a run with the message (a wake, a "consumed by") is its claim
    of a hand-over, not evidence that the message arrived: a run woken with it
    whose reads never name it did not receive it, and is named as such.
    """
    if late is None:
        return CheckRecord(id="drain.message-received", passed=False, detail="no message was stored before the signal")
    read = [r.id for r in finished if any(late in receipt.received_message_ids for receipt in r.receipts)]
    claimed = [r.id for r in finished if r.id in woken and r.id not in read]
    return CheckRecord(
        id="drain.message-received",
        passed=bool(read),
        detail=f"message {late} read by run(s) {read}"
        if read
        else f"no run that finished after the signal lists message {late} in its reads"
        + (f"; the product says it woke run(s) {claimed} with it, which never read it" if claimed else ""),
    )


def _delivered_once_check(record: DrainRecord, task: Task, finished: list[Run], woken: list[RecordId]) -> CheckRecord:
    """One delivery of the work, by a run that finished it: the drained run delivers nothing after the signal.

    The one more delivery allowed is a revision by the run the product woke
    with the late message (its own run for it), which answers a request the
    work did not hold; a second delivery of the same work is a duplicate.
    """
    late = [d for d in task.deliveries if at_or_after(d.created_at, record.signalled_at)]
    by_drained = [d.id for d in late if d.run_id == record.before.run.id]
    finishers = {r.id for r in finished}
    revisions = [d for d in task.deliveries if d.run_id in woken]
    work = [d for d in task.deliveries if d not in revisions]
    passed = (
        bool(task.deliveries)
        and len(work) <= 1
        and len(revisions) <= 1
        and not by_drained
        and all(d.run_id in finishers for d in late)
    )
    return CheckRecord(
        id="drain.delivered-once",
        passed=passed,
        detail=f"{len(task.deliveries)} delivery(ies) ({len(revisions)} by a run woken with the late message), "
        f"{len(late)} after the signal (by runs {sorted({str(d.run_id) for d in late})}); by the drained run after "
        f"it: {by_drained or 'none'}",
    )
