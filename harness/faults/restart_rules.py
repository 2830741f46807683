"""The rules of a controller restart: what the before/after/final snapshots must show, decided on them alone.

The snapshots hold what a reviewer needs to see that nothing was lost or
repeated (controller instance, run identity, receipt ids with a digest of
each receipt, the late message, workspace file hashes) and nothing secret:
no run token, no log text. The step that takes them is :mod:`harness.faults.restart`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from harness.core.product_records import Comment, Interaction, ProviderQuestionCard, Receipt, RecordId, Run, Task
from harness.core.records import CheckRecord

REPLACED = "restart.controller-replaced"
Moment = Literal["before", "after", "final"]


class ReceiptDigest(BaseModel):
    id: str
    seq: int
    tool: str
    target: str
    sha256: str
    received_message_ids: list[str] = []

    @classmethod
    def of(cls, receipt: Receipt) -> ReceiptDigest:
        canonical = json.dumps(receipt.model_dump(), sort_keys=True, separators=(",", ":"))
        return cls(
            id=receipt.id,
            seq=receipt.seq,
            tool=receipt.tool,
            target=receipt.target,
            sha256=hashlib.sha256(canonical.encode()).hexdigest(),
            received_message_ids=receipt.received_message_ids,
        )


class RunState(BaseModel):
    id: RecordId
    status: str
    error_code: str | None
    runner_instance_id: str | None
    pid: int | None
    process_start_time: float | None
    receipts: list[ReceiptDigest]
    # A sandboxed runner's lease (sandbox id, start time, image), kept as a digest: never the raw sandbox id.
    lease_sha256: str | None = None
    lease_active: bool | None = None

    @property
    def identity(self) -> tuple[str | None, int | None, float | None, str | None]:
        return self.runner_instance_id, self.pid, self.process_start_time, self.lease_sha256

    @classmethod
    def of(cls, run: Run) -> RunState:
        lease = run.identity.lease
        return cls(
            id=run.id,
            status=run.status,
            error_code=run.error_code,
            runner_instance_id=run.identity.runner_instance_id,
            pid=run.identity.pid,
            process_start_time=run.identity.process_start_time,
            receipts=[ReceiptDigest.of(r) for r in run.receipts],
            lease_sha256=None if lease is None else lease.digest,
            lease_active=None if lease is None else lease.active,
        )


class MessageState(BaseModel):
    id: RecordId
    consumed_by_run_id: RecordId | None

    @classmethod
    def of(cls, comment: Comment | None) -> MessageState | None:
        return None if comment is None else cls(id=comment.id, consumed_by_run_id=comment.consumed_by_run_id)


class RestartSnapshot(BaseModel):
    """One moment of the restart, as read back through the public API."""

    moment: Moment
    signal: str
    controller_instance_id: str
    controller_pid: int | None
    run: RunState
    message: MessageState | None
    workspace: dict[str, str]


class DrivenRestart(BaseModel):
    """How the controller was restarted: the product's promise it was held to and exactly what was driven."""

    signal: str
    promise: str | None = None  # the product's documented promise (its id); None: a plain signal, no promise of its own
    mechanism: str
    intent: dict[str, Any] | None = None  # the product's own restart request, as written
    report: dict[str, Any] | None = None  # what the product's new controller says it did with the runs


class RestartRecord(BaseModel):
    """What the restart step learned, for the checks at the end."""

    before: RestartSnapshot
    after: RestartSnapshot
    runner_kept_going: bool
    adopted: bool
    driven: DrivenRestart | None = None
    evidence: list[str] = []
    name: str = Field(default="", description="the snapshots' file name stem: restart-<signal>, or remote-restart")


def replaced_check(before: RestartSnapshot | PendingMoment, after: RestartSnapshot | PendingMoment) -> CheckRecord:
    """A new controller answers after the restart (a new instance id proves it)."""
    return CheckRecord(
        id=REPLACED,
        passed=before.controller_instance_id != after.controller_instance_id,
        detail=f"controller pid {before.controller_pid} -> {after.controller_pid} after {before.signal}",
    )


def _duplicates(values: Sequence[object]) -> list[object]:
    return sorted({v for v in values if values.count(v) > 1}, key=str)


def restart_checks(
    record: RestartRecord, final: RestartSnapshot, task: Task, shown_in_thread: int = 1
) -> list[CheckRecord]:
    """The named requirements of a restart under a running job, decided on the three snapshots.

    ``shown_in_thread`` is how often the page, reloaded after the work, shows the late message.
    """
    before, after = record.before, record.after
    checks = [
        replaced_check(before, after),
        CheckRecord(
            id="restart.runner-kept-going",
            passed=record.runner_kept_going,
            detail=f"runner pid {before.run.pid} {'was' if record.runner_kept_going else 'was NOT'} alive while the controller was down",
        ),
    ]
    known = any(value not in (None, "") for value in before.run.identity)
    same = known and before.run.identity == after.run.identity == final.run.identity
    checks.append(
        CheckRecord(
            id="restart.same-run",
            passed=same and record.adopted and final.run.status == "succeeded",
            detail=(
                f"run {before.run.id}: {before.run.status} -> {after.run.status} -> {final.run.status}; "
                f"identity {'unchanged' if same else 'CHANGED' if known else 'UNKNOWN'} (pid {before.run.pid}/{after.run.pid}/{final.run.pid}); "
                f"{'re-adopted' if record.adopted else 'NOT re-adopted'} by the new controller"
            ),
        )
    )
    checks.append(_message_check(before, task, shown_in_thread))
    if before.message is not None:  # without one, restart.message-survived already names what is missing
        checks.append(_received_check(before, final))
    ids = [r.id for r in final.run.receipts]
    seqs = [r.seq for r in final.run.receipts]
    repeated = _duplicates(ids) + _duplicates([(r.tool, r.target, r.sha256) for r in final.run.receipts])
    checks.append(
        CheckRecord(
            id="restart.receipts-once",
            passed=not repeated and seqs == list(range(len(seqs))),
            detail=f"{len(ids)} receipts, seq 0..{len(seqs) - 1}"
            if not repeated and seqs == list(range(len(seqs)))
            else f"repeated {repeated[:3]}; seqs {seqs}",
        )
    )
    prefix = final.run.receipts[: len(before.run.receipts)]
    checks.append(
        CheckRecord(
            id="restart.receipt-prefix",
            passed=prefix == before.run.receipts,
            detail=f"the {len(before.run.receipts)} receipts recorded before the restart are "
            f"{'unchanged' if prefix == before.run.receipts else 'CHANGED'} at the start of the final record",
        )
    )
    replies = [c.body.strip() for c in task.agent_replies()]  # by body: a second run posting it again is a double
    shas = [d.sha256 for d in task.deliveries]
    doubled = _duplicates(replies) + _duplicates(shas)
    checks.append(
        CheckRecord(
            id="restart.records-once",
            passed=not doubled,
            detail=f"{len(replies)} replies and {len(shas)} deliveries, none twice"
            if not doubled
            else f"recorded twice: {doubled[:3]}",
        )
    )
    return checks


def _received_check(before: RestartSnapshot, final: RestartSnapshot) -> CheckRecord:
    """The runner itself says it received the late message: after the restart if it was still queued then.

    The product's "consumed by run N" is its own word; a late message that
    does not visibly change the ZIP would slip through on that word alone.
    """
    check_id = "restart.message-received"
    assert before.message is not None
    late = str(before.message.id)
    queued = before.message.consumed_by_run_id is None
    window = final.run.receipts[len(before.run.receipts) :] if queued else final.run.receipts
    reads = [r for r in window if late in r.received_message_ids]
    when = "after the restart" if queued else "(it was read before the restart)"
    detail = (
        f"run {final.run.id}'s receipt {reads[0].id} ({reads[0].tool}) lists message {late} {when}"
        if reads
        else f"no read receipt of run {final.run.id} lists message {late} {when}"
    )
    return CheckRecord(id=check_id, passed=bool(reads), detail=detail)


def _message_check(before: RestartSnapshot, task: Task, shown_in_thread: int) -> CheckRecord:
    """The late requirement, persisted before the restart, survives it once and is read by a successful run."""
    if before.message is None:
        return CheckRecord(
            id="restart.message-survived", passed=False, detail="no message was persisted before the restart"
        )
    stored = [c for c in task.user_messages() if c.id == before.message.id]
    consumer = next((r for r in task.runs if stored and r.id == stored[0].consumed_by_run_id), None)
    passed = len(stored) == 1 and shown_in_thread == 1 and consumer is not None and consumer.status == "succeeded"
    state = (
        "unread" if before.message.consumed_by_run_id is None else f"read by run {before.message.consumed_by_run_id}"
    )
    detail = (
        f"message {before.message.id} ({state} at the restart) stored {len(stored)} time(s), shown "
        f"{shown_in_thread} time(s) after a reload; consumed by "
        f"{'run ' + str(consumer.id) + ' ' + consumer.status if consumer else 'no run'}"
    )
    return CheckRecord(id="restart.message-survived", passed=passed, detail=detail)


class PendingMoment(BaseModel):
    """One moment of a restart under a pending question: the controller, the question as stored and as shown."""

    moment: Moment
    signal: str
    controller_instance_id: str
    controller_pid: int | None
    stored: Interaction | None
    shown: ProviderQuestionCard | None
    runs: list[RunState]
