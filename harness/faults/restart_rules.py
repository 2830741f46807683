"""The rules of a controller restart: what the before/after/final snapshots must show, decided on them alone.

The snapshots hold what a reviewer needs to see that nothing was lost or
repeated (controller instance, run identity, receipt ids with a digest of
each receipt, the late message, workspace file hashes) and nothing secret:
no run token, no log text. The step that takes them is :mod:`harness.faults.restart`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Hashable, Sequence
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, Field

from harness.core.product_records import (
    Comment,
    Delivery,
    Interaction,
    ProviderQuestionCard,
    Receipt,
    RecordId,
    Run,
    Task,
)
from harness.core.records import CheckRecord
from harness.core.runner_look import RunnerLook

REPLACED = "restart.controller-replaced"
H = TypeVar("H", bound=Hashable)
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
    runner: RunnerLook | None = Field(
        None, description="the harness's own look at the runner the run names (None: a package from before looks)"
    )


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


def _duplicates(values: Sequence[H]) -> list[H]:
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
    checks.append(same_run_check(record, final))
    checks.append(_message_check(before, task, shown_in_thread))
    if before.message is not None:  # without one, restart.message-survived already names what is missing
        checks.append(_received_check(before, final))
    checks.append(receipts_once_check(before, final))
    prefix = final.run.receipts[: len(before.run.receipts)]
    checks.append(
        CheckRecord(
            id="restart.receipt-prefix",
            passed=prefix == before.run.receipts,
            detail=f"the {len(before.run.receipts)} receipts recorded before the restart are "
            f"{'unchanged' if prefix == before.run.receipts else 'CHANGED'} at the start of the final record",
        )
    )
    checks.append(records_once_check(task))
    return checks


def _looked(look: RunnerLook) -> str:
    if not look.alive:
        return f"{look.looked_for}: nothing running"
    return f"{look.looked_for}: running since {look.started}" + (
        f" (first process {look.pid})" if look.source == "engine" else ""
    )


def same_run_check(record: RestartRecord, final: RestartSnapshot) -> CheckRecord:
    """The run that was working before the restart is the one that finished it, in the very same runner.

    The product's record of the run's identity is its word; the harness's own
    looks (the process table for a local runner, the engine for a sandboxed
    one) before and after the restart must show the same process (pid and
    start time, and container), still running after it, and the run's
    receipts must go on after the restart: its work continued in it. A
    product that kept the old identity on a run whose runner it replaced
    passes on its word alone; it fails here.
    """
    before, after = record.before, record.after
    known = any(value not in (None, "") for value in before.run.identity)
    said_same = known and before.run.identity == after.run.identity == final.run.identity
    if before.runner is None or after.runner is None:  # a package from before the harness kept its looks
        return CheckRecord(
            id="restart.same-run",
            passed=False,
            detail=f"no evidence: run {before.run.id}'s package keeps no look of the harness's at its runner, only the"
            " product's word on its identity",
        )
    seen_same = before.runner.key is not None and before.runner.key == after.runner.key
    worked_on = len(final.run.receipts) - len(before.run.receipts)
    passed = said_same and seen_same and worked_on > 0 and record.adopted and final.run.status == "succeeded"
    seen = "the same process" if seen_same else "NOT the same running process"
    return CheckRecord(
        id="restart.same-run",
        passed=passed,
        detail=(
            f"run {before.run.id}: {before.run.status} -> {after.run.status} -> {final.run.status}; "
            f"identity {'unchanged' if said_same else 'CHANGED' if known else 'UNKNOWN'} "
            f"(pid {before.run.pid}/{after.run.pid}/{final.run.pid}); "
            f"{'re-adopted' if record.adopted else 'NOT re-adopted'} by the new controller; "
            f"the harness saw {seen} (before: {_looked(before.runner)}, after: {_looked(after.runner)}); "
            f"{max(worked_on, 0)} receipt(s) after the restart"
        ),
    )


def receipts_once_check(before: RestartSnapshot, final: RestartSnapshot) -> CheckRecord:
    """Each receipt of the run recorded once, in order, and each message handed to its runner once from the restart on.

    A receipt is keyed on what it stands for: its own id, and for a read the
    message it received and the run that read it. A message read before the
    restart and read again after it, or twice after it, was handed to the
    runner twice across the restart, whatever the receipts' ids say.
    """
    run = final.run
    ids = [r.id for r in run.receipts]
    seqs = [r.seq for r in run.receipts]
    in_order = seqs == list(range(len(seqs)))
    read_before = {m for r in before.run.receipts for m in r.received_message_ids}
    read_after = [m for r in run.receipts[len(before.run.receipts) :] for m in r.received_message_ids]
    reread = sorted({m for m in read_after if m in read_before} | set(_duplicates(read_after)), key=str)
    problems = [f"receipt {i} recorded twice" for i in _duplicates(ids)]
    problems += [f"message {m} read by run {run.id} twice across the restart" for m in reread]
    if not in_order:
        problems.append(f"seqs {seqs}")
    return CheckRecord(
        id="restart.receipts-once",
        passed=not problems,
        detail=f"{len(ids)} receipts, seq 0..{len(seqs) - 1}; {len(read_after)} message(s) read after the restart, "
        "none read before"
        if not problems
        else "; ".join(problems[:4]),
    )


def records_once_check(task: Task) -> CheckRecord:
    """Every reply and delivery is one record: kept by its id and the run that made it, never by its text alone.

    Two runs that write the same words made two replies; one run whose
    reply is stored twice, a copy that names no run, an id listed twice, or
    more deliveries of a run than its runner's own deliver receipts name
    (an archive re-stored under a new id, re-packed or not) is a record kept
    twice. A runner that reports no deliver step has its deliveries kept
    apart by their bytes alone.
    """
    replies = task.agent_replies()
    by_run = {(c.run_id, c.body.strip()): c.id for c in replies if c.run_id is not None}
    problems = [f"reply {i} listed twice" for i in _duplicates([c.id for c in replies])]
    problems += [f"delivery {i} listed twice" for i in _duplicates([d.id for d in task.deliveries])]
    problems += [
        f"run {run_id}'s reply {body[:40]!r} stored twice"
        for run_id, body in _duplicates([(c.run_id, c.body.strip()) for c in replies if c.run_id is not None])
    ]
    problems += [
        f"reply {c.id} repeats run {run_id}'s reply {by_run[(run_id, c.body.strip())]} naming no run"
        for c in replies
        if c.run_id is None
        for run_id in sorted({r for r, body in by_run if body == c.body.strip()}, key=str)
    ]
    for run in task.runs:
        problems += _deliveries_beyond_receipts(run, [d for d in task.deliveries if d.run_id == run.id])
    return CheckRecord(
        id="restart.records-once",
        passed=not problems,
        detail=f"{len(replies)} replies and {len(task.deliveries)} deliveries, each one record of the run that made it"
        if not problems
        else "recorded twice: " + "; ".join(problems[:3]),
    )


def _deliveries_beyond_receipts(run: Run, deliveries: Sequence[Delivery]) -> list[str]:
    """The run's delivery records its runner's deliver receipts do not account for, archive by archive."""
    made = [r.delivered_sha256 for r in run.receipts if r.delivered_sha256]
    shas = [d.sha256 for d in deliveries]
    if not made:
        return [f"run {run.id}'s delivery {sha[:12]} stored twice" for sha in _duplicates(shas)]
    extra = [sha for sha in dict.fromkeys(shas) if shas.count(sha) > made.count(sha)]
    return [
        f"run {run.id} has {shas.count(sha)} deliveries of {sha[:12]} but its runner delivered it {made.count(sha)} time(s)"
        for sha in extra
    ]


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
