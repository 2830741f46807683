"""A controller restart under a running job: the step, its before/after/final snapshots and the checks on them.

The snapshots hold what a reviewer needs to see that nothing was lost or
repeated (controller instance, run identity, receipt ids with a digest of
each receipt, the late message, workspace file hashes) and nothing secret:
no run token, no log text.
"""

from __future__ import annotations

import hashlib
import json
import signal
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any, Literal, Protocol, cast, runtime_checkable

from pydantic import BaseModel, Field

from harness.core.product_records import (
    Comment,
    Interaction,
    ProviderQuestionCard,
    Receipt,
    RecordId,
    Run,
    Task,
)
from harness.core.records import CheckRecord
from harness.core.verdicts import InfrastructureFailed, StoryFailed, Unexercised
from harness.judging.observations import judge
from harness.products.base import InstanceError, ServicesApi
from harness.running.journey import FINISHED_STATUSES, Journey, PendingMessage
from harness.running.sandbox_watch import runner_alive

REPLACED = "restart.controller-replaced"
# How long a task may sit unfinished with nothing running or queued on it before the restart counts as having lost
# the work (a product queues its own retry within seconds of starting again).
STALL_S = 30.0

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


@runtime_checkable
class HotRestartable(Protocol):
    """A product instance with a documented restart that keeps runs alive (Paperclip's ``service restart``).

    ``request_hot_restart`` writes the product's own restart request for the
    running controller; the fault then sends the signal and starts the
    controller again, as the product's service manager would.
    """

    hot_restart_promise: str
    hot_restart_mechanism: str

    def request_hot_restart(self) -> dict[str, Any]: ...

    def hot_restart_report(self) -> dict[str, Any] | None: ...


class RestartRecord(BaseModel):
    """What the restart step learned, for the checks at the end."""

    before: RestartSnapshot
    after: RestartSnapshot
    runner_kept_going: bool
    adopted: bool
    driven: DrivenRestart | None = None
    evidence: list[str] = []
    name: str = Field(default="", description="the snapshots' file name stem: restart-<signal>, or remote-restart")


def restart_controller(
    journey: Journey, run: Run, sig: signal.Signals, once_stored: PendingMessage | None = None, name: str = ""
) -> RestartRecord:
    """Restart the product's controller under ``run`` as soon as the late message is stored; keep before and after.

    The runner keeps going meanwhile. The restart counts only if the new
    controller re-adopted this very run; a run that finished on its own
    before the signal leaves the attempt unexercised. A run the restart
    ended (its runner gone, not adopted) is a failure decided right here,
    with the restart checks: there is no job left to wait for.
    """
    name = name or f"restart-{sig.name.lower()}"
    message_id = journey.wait_until_stored(once_stored).id if once_stored else None
    current = journey.api.run(run.id)
    if current.status != "running":
        journey.ended_before(current, f"the {sig.name} restart")
    seen = {a.id for a in journey.api.activity()}
    before = snapshot(journey, "before", sig, current, message_id)
    before_path = journey.evidence.snapshot(f"{name}-before", before)
    signalled_at = datetime.now(UTC)
    with journey.evidence.fault(f"controller {sig.name} restart", f"run {run.id} running"):
        driven = _request_restart(journey, sig)
        stop_controller(journey, sig, before.controller_pid)
        kept_going = runner_alive(journey.instance, current)
        start_controller(journey)
    if isinstance(journey.instance, HotRestartable) and driven.intent is not None:
        driven.report = journey.instance.hot_restart_report()
    journey.evidence.note("restart driven", f"{driven.promise or 'no product promise'}: {driven.mechanism}")
    # The product's activity, or its own restart report (what `paperclipai service restart` prints), says so.
    reported = [str(i) for i in (driven.report or {}).get("adoptedRunIds", [])]
    adopted = str(run.id) in reported or any(
        a.kind == "run_adopted" and a.run_id == run.id and a.id not in seen for a in journey.api.activity()
    )
    after_run = journey.api.run(run.id)
    after = snapshot(journey, "after", sig, after_run, message_id)
    after_path = journey.evidence.snapshot(f"{name}-after", after)
    journey.evidence.note(
        "restart", f"controller {sig.name}, runner pid {current.identity.pid} alive meanwhile: {kept_going}"
    )
    journey.screenshot(f"after {sig.name} restart")
    journey.evidence.note("restarted", f"run {run.id} is {after_run.status}; re-adopted: {adopted}")
    if not adopted and after_run.status == "succeeded" and _ended_before(after_run, signalled_at):
        raise Unexercised(
            f"run {run.id} finished before the {sig.name} reached the controller; the restart hit no running job"
        )
    driven_path = journey.evidence.snapshot(f"{name}-driven", driven)
    record = RestartRecord(
        before=before,
        after=after,
        runner_kept_going=kept_going,
        adopted=adopted,
        driven=driven,
        evidence=[before_path, after_path, driven_path],
        name=name,
    )
    if not kept_going and not adopted and not after_run.active:
        require_recovered(journey, journey.api.task(run.task_id), record)
        raise StoryFailed(
            f"the {sig.name} restart ended run {run.id} ({after_run.status}, {after_run.terminal}) "
            f"instead of keeping it: its runner was gone and the new controller did not adopt it"
            + (f" (held to the product's promise {driven.promise})" if driven.promise else "")
        )
    return record


def _request_restart(journey: Journey, sig: signal.Signals) -> DrivenRestart:
    """A graceful restart goes the way the product documents keeping runs alive across it, where it has one.

    SIGTERM on a product with a hot restart: its own restart request first,
    then the signal. Anything else is the plain signal, held to no promise
    of the product's own (the story's requirement stands on its own).
    """
    instance = journey.instance
    if sig is signal.SIGTERM and isinstance(instance, HotRestartable):
        try:
            intent = instance.request_hot_restart()
        except InstanceError as error:
            raise InfrastructureFailed(f"could not request the product's hot restart: {error}") from None
        return DrivenRestart(
            signal=sig.name,
            promise=instance.hot_restart_promise,
            mechanism=instance.hot_restart_mechanism,
            intent=intent,
        )
    return DrivenRestart(
        signal=sig.name, mechanism=f"{sig.name} to the controller, then started again on the same data"
    )


def _ended_before(run: Run, moment: datetime) -> bool:
    """The run's recorded end is earlier than ``moment`` (products write ISO 8601 times)."""
    if run.ended_at is None:
        return False
    ended = datetime.fromisoformat(run.ended_at.replace("Z", "+00:00"))
    return (ended if ended.tzinfo else ended.replace(tzinfo=UTC)) < moment


def wait_until_work_done(journey: Journey, task: Task, record: RestartRecord, what: str) -> Task:
    """Wait for the work after the restart; a task left unfinished with nothing running or queued is decided at once.

    A product whose restart lost the run (adopted, then gone, no retry)
    leaves the task in progress for ever: the restart's checks name that as
    soon as nothing has been running or waiting on it for ``STALL_S``,
    instead of the attempt timing out on ``expect.task-finished``. A run the
    product still records as running whose process the harness sees gone
    (it watches the process table itself) runs nothing.
    """
    idle_since: list[float] = []

    def working(run: Run) -> bool:
        if run.status != "running" or not run.identity.pid:
            return run.active
        return journey.instance.process_alive(run.identity.pid, run.identity.process_start_time or 0)

    def done_or_stalled() -> Task | None:
        current = journey.api.task(task.id)
        if any(working(run) for run in current.runs):
            idle_since.clear()
            return None
        if current.status in FINISHED_STATUSES:
            return current
        idle_since[:1] = idle_since[:1] or [time.monotonic()]
        return current if time.monotonic() - idle_since[0] > STALL_S else None

    current = journey.wait(done_or_stalled, f"{what} on task {task.id}", "task-finished")
    if current.status not in FINISHED_STATUSES or any(run.active for run in current.runs):
        require_recovered(journey, current, record)
        promise = record.driven.promise if record.driven else None
        state = journey.api.run(record.before.run.id).status
        why = (
            f"task {task.id} is {current.status}, but run {record.before.run.id} is still recorded {state} though its"
            f" process is gone"
            if current.status in FINISHED_STATUSES
            else f"task {task.id} is {current.status} with nothing running or queued on it: run {record.before.run.id}"
            f" is recorded {state} and nothing carries on its work"
        )
        raise StoryFailed(
            f"after the {record.before.signal} restart {why}"
            + (f" (held to the product's promise {promise})" if promise else "")
        )
    return journey.wait_until_finished(task, what)


def require_recovered(journey: Journey, task: Task, record: RestartRecord) -> None:
    """After the work: the same run and runner all along, the message read once, nothing recorded twice."""
    sig = signal.Signals[record.before.signal]
    message_id = record.before.message.id if record.before.message else None
    final = snapshot(journey, "final", sig, journey.api.run(record.before.run.id), message_id)
    final_path = journey.evidence.snapshot(f"{record.name or f'restart-{sig.name.lower()}'}-final", final)
    current = journey.api.task(task.id)
    message = next((c for c in current.comments if c.id == message_id), None)
    page = journey.current_page()
    page.reload()
    shown = len(page.user_messages_with(message.body)) if message else 0
    checks = judge(restart_checks, record, final, current, shown_in_thread=shown)
    promise = record.driven.promise if record.driven else None
    journey.record_checks(checks, [*record.evidence, final_path], promise)


def snapshot(
    journey: Journey, moment: Moment, sig: signal.Signals, run: Run, message_id: RecordId | None
) -> RestartSnapshot:
    controller = journey.api.controller()
    task = journey.api.task(run.task_id)
    message = next((c for c in task.user_messages() if c.id == message_id), None)
    return RestartSnapshot(
        moment=moment,
        signal=sig.name,
        controller_instance_id=controller.instance_id,
        controller_pid=controller.pid,
        run=RunState.of(run),
        message=MessageState.of(message),
        workspace=journey.api.workspace_hashes(run.task_id),
    )


def stop_controller(journey: Journey, sig: signal.Signals, pid: int | None) -> None:
    """Signal the product's controller and wait for it to go.

    One that outlasts the signal is the product's failure, not the
    harness's: no new controller can take over while it holds on, so the
    restart's first requirement (a new controller) fails by name.
    """
    try:
        journey.instance.stop_controller(sig)
    except InstanceError as error:
        journey.fail_check(REPLACED, f"controller pid {pid} {error}: no new controller could take over")


def start_controller(journey: Journey) -> None:
    """Start the controller again on the same data, then reload the person's page, as they would once it is back.

    A start that fails stays infrastructure_failed, as before: from outside,
    a product that will not start cannot be told from a machine that cannot
    start it (a port taken meanwhile, a full disk). A single-page UI that
    fetched while the controller was down may show only its error ("Failed to
    fetch") until reloaded; a page that does not show the task after the
    reload is the product's failure, ``expect.task-page-shown``.
    """
    try:
        journey.instance.start()
    except InstanceError as error:
        raise InfrastructureFailed(f"the controller did not restart: {error}") from None
    with journey.expecting("task-page-shown", "reloading the page after the controller restarted"):
        journey.reload()


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


# ---- a restart while a person's answer is pending (the provider stories) ------------------------------


class PendingMoment(BaseModel):
    """One moment of a restart under a pending question: the controller, the question as stored and as shown."""

    moment: Moment
    signal: str
    controller_instance_id: str
    controller_pid: int | None
    stored: Interaction | None
    shown: ProviderQuestionCard | None
    runs: list[RunState]


class PendingRestart(BaseModel):
    """What the restart step learned, for the checks on the question and the final snapshot."""

    before: PendingMoment
    after: PendingMoment
    evidence: list[str] = []


def restart_while_pending(
    journey: Journey,
    interaction: Interaction,
    sig: signal.Signals,
    shown: Callable[[], ProviderQuestionCard | None],
) -> PendingRestart:
    """Restart the product's controller while ``interaction`` waits for the person; keep before and after.

    ``shown`` reads the question's card off the page (reloaded after the
    restart). The restart counts only if the question is still pending the
    moment the controller goes down; otherwise the attempt is unexercised.
    """
    before = _pending_moment(journey, "before", sig, interaction, shown())
    if before.stored is None or before.stored.status != "pending":
        state = "gone" if before.stored is None else before.stored.status
        journey.evidence.note("premise missed", f"interaction {interaction.id} is {state} before the {sig.name}")
        raise Unexercised(f"interaction {interaction.id} was no longer pending ({state}) when the restart was due")
    before_path = journey.evidence.snapshot(f"restart-{sig.name.lower()}-before", before)
    stop_controller(journey, sig, before.controller_pid)
    start_controller(journey)
    after = _pending_moment(journey, "after", sig, interaction, shown())
    after_path = journey.evidence.snapshot(f"restart-{sig.name.lower()}-after", after)
    journey.screenshot(f"after {sig.name} restart")
    journey.evidence.note("restart", f"controller {sig.name} while interaction {interaction.id} was pending")
    record = PendingRestart(before=before, after=after, evidence=[before_path, after_path])
    journey.record_checks(judge(replaced_check, before, after), record.evidence)
    return record


def keep_final_pending(journey: Journey, record: PendingRestart) -> str:
    """The final snapshot of a restart under a pending question, after the story's outcome (as recover-controller
    keeps its three)."""
    sig = signal.Signals[record.before.signal]
    assert record.before.stored is not None, "the restart landed only while the question was stored and pending"
    final = _pending_moment(journey, "final", sig, record.before.stored, None)
    return journey.evidence.snapshot(f"restart-{sig.name.lower()}-final", final)


def _pending_moment(
    journey: Journey, moment: Moment, sig: signal.Signals, interaction: Interaction, shown: ProviderQuestionCard | None
) -> PendingMoment:
    controller = journey.api.controller()
    api = cast(ServicesApi, journey.api)
    stored = next((i for i in api.interactions(interaction.task_id) if str(i.id) == str(interaction.id)), None)
    return PendingMoment(
        moment=moment,
        signal=sig.name,
        controller_instance_id=controller.instance_id,
        controller_pid=controller.pid,
        stored=stored,
        shown=shown,
        runs=[RunState.of(run) for run in journey.api.task(interaction.task_id).runs],
    )
