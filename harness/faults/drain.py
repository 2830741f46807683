"""A graceful shutdown under a running job, where the product promises to drain: the step (its checks are
:mod:`harness.faults.drain_rules`).

Some products do not keep a run alive across a plain SIGTERM; they promise a
drain instead (Paperclip: the run is stopped and marked interrupted, and the
work is retried once the server is back). A story holds such a product to
that promise: the run under the signal ends interrupted (not a success it
never finished), a retry finishes the work, the late message is not lost,
and nothing is delivered twice.

A product drains on a plain SIGTERM (Paperclip), or on a SIGTERM once its
operator asked for a drain (the testbed, whose plain SIGTERM leaves its
runners working): an instance that takes such a request says so
(:class:`DrainOnRequest`), and the fault asks before it signals.

A product may take the work up again by more than one path once it is back:
the drain's own retry, or its restart recovery of work nothing runs
(Paperclip's, for a run whose own end was recorded before the drain's). The
instance says how long that recovery may take (``drain_recovery_s``).
"""

from __future__ import annotations

import signal
from datetime import UTC, datetime
from typing import Protocol, runtime_checkable

from harness.core.product_records import RecordId, Run, Task
from harness.core.verdicts import InfrastructureFailed, StoryFailed, Unexercised
from harness.core.waiting import WaitTimeout, wait_for
from harness.faults.drain_rules import DrainRecord, at_or_after, drain_checks, read_before_signal
from harness.faults.restart import snapshot, start_controller, stop_controller
from harness.faults.restart_rules import RestartSnapshot
from harness.judging.observations import judge
from harness.products.base import InstanceError
from harness.running.journey import Journey, PendingMessage

__all__ = ["DrainOnRequest", "DrainRecord", "drain_checks", "drain_controller", "require_drained"]
# drain_checks stays importable from here: packages judged before the rules moved name it by this module.

SIGNAL = signal.SIGTERM


@runtime_checkable
class DrainOnRequest(Protocol):
    """A product instance whose shutdown drains only once its operator asked for a drain (the testbed).

    ``request_drain`` makes the running controller's next shutdown a drain;
    the fault then sends the plain SIGTERM the drain story is about.
    """

    drain_mechanism: str

    def request_drain(self) -> None: ...


def drain_controller(journey: Journey, run: Run, once_stored: PendingMessage) -> DrainRecord:
    """SIGTERM the controller under ``run`` as soon as the late message is stored, then start it again.

    The product's instance names the drain it documents (``drain_promise``,
    its id in the driver's promises), which the checks hold it to, and how
    long its restart recovery may take to start the work again
    (``drain_recovery_s``; none: the retry is queued before the controller
    exits). The run the drain interrupts is the story's own doing, so the
    lifecycle checks excuse it.
    """
    promise: str | None = getattr(journey.instance, "drain_promise", None)
    recovery_s: float = getattr(journey.instance, "drain_recovery_s", 0.0)
    message_id = journey.wait_until_stored(once_stored).id
    current = journey.api.run(run.id)
    if current.status != "running":
        journey.ended_before(current, "the SIGTERM drain")
    before = snapshot(journey, "before", SIGNAL, current, message_id)
    before_path = journey.evidence.snapshot("drain-before", before)
    signalled_at = datetime.now(UTC)
    with journey.evidence.fault("controller SIGTERM drain", f"run {run.id} running"):
        _request_drain(journey)
        stop_controller(journey, SIGNAL, before.controller_pid)
        runner_gone = not journey.instance.process_alive(
            current.identity.pid or 0, current.identity.process_start_time or 0
        )
        start_controller(journey)
    journey.excuse_interruption(current)
    after = snapshot(journey, "after", SIGNAL, journey.api.run(run.id), message_id)
    after_path = journey.evidence.snapshot("drain-after", after)
    _require_unread_at_signal(journey, after, str(message_id))
    journey.evidence.note(
        "drain", f"controller SIGTERM (no restart request); run {run.id} {after.run.status}; runner gone: {runner_gone}"
    )
    journey.screenshot("after SIGTERM drain")
    record = DrainRecord(
        before=before,
        after=after,
        signalled_at=signalled_at,
        runner_gone=runner_gone,
        promise=promise,
        evidence=[before_path, after_path],
    )
    task = taken_up(journey, run.task_id, signalled_at, recovery_s)
    if not _taking_up(task, signalled_at):
        require_drained(journey, task, record)
        raise StoryFailed(
            f"after the SIGTERM drain nothing runs or waits on task {task.id}: run {run.id} is recorded "
            f"{after.run.status} ({after.run.error_code}) and no run took the work up within {recovery_s:.0f} s"
            + (f" (held to the product's promise {promise})" if promise else "")
        )
    return record


def _require_unread_at_signal(journey: Journey, after: RestartSnapshot, late: str) -> None:
    """The premise: the late message was still unread when the drain came (a race with the runner's next step); a
    miss leaves the attempt unexercised, not judged."""
    if read_before_signal(after, late):
        journey.evidence.note("premise missed", f"run {after.run.id} read message {late} before the drain")
        raise Unexercised(f"run {after.run.id} read the late message {late} before the SIGTERM drained it")


def _request_drain(journey: Journey) -> None:
    """The product's own drain request where it needs one; a product that drains on any SIGTERM gets only the signal."""
    instance = journey.instance
    if not isinstance(instance, DrainOnRequest):
        journey.evidence.note("drain driven", f"{SIGNAL.name} to the controller, then started again on the same data")
        return
    try:
        instance.request_drain()
    except InstanceError as error:
        raise InfrastructureFailed(f"could not request the product's drain: {error}") from None
    journey.evidence.note("drain driven", instance.drain_mechanism)


def taken_up(journey: Journey, task_id: RecordId, signalled_at: datetime, recovery_s: float) -> Task:
    """The task once a run queued after the signal has taken its work up, or as it is after ``recovery_s`` without."""

    def working() -> Task | None:
        task = journey.api.task(task_id)
        return task if _taking_up(task, signalled_at) else None

    try:
        return wait_for(working, timeout=recovery_s, interval=0.5, what=f"a run to take task {task_id} up again")
    except WaitTimeout:
        return journey.api.task(task_id)


def _taking_up(task: Task, signalled_at: datetime) -> list[Run]:
    """Runs queued after the signal that run, wait or finished the work (one that failed took nothing up)."""
    return [r for r in task.runs if at_or_after(r.queued_at, signalled_at) and (r.active or r.status == "succeeded")]


def require_drained(journey: Journey, task: Task, record: DrainRecord) -> None:
    """After the work: the drain's checks on the task as the product now records it."""
    current = journey.api.task(task.id)
    path = journey.evidence.snapshot("drain-final", current)
    journey.record_checks(judge(drain_checks, record, current), [*record.evidence, path], record.promise)
