"""A controller restart under a running job: the step that drives it and takes its before/after/final snapshots.

The checks decided on the snapshots are :mod:`harness.faults.restart_rules`.

The snapshots hold what a reviewer needs to see that nothing was lost or
repeated (controller instance, run identity, receipt ids with a digest of
each receipt, the late message, workspace file hashes) and nothing secret:
no run token, no log text.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel

from harness.core.product_records import (
    Interaction,
    ProviderQuestionCard,
    RecordId,
    Run,
    Task,
)
from harness.core.verdicts import InfrastructureFailed, StoryFailed, Unexercised
from harness.faults.restart_rules import (
    REPLACED,
    DrivenRestart,
    MessageState,
    Moment,
    PendingMoment,
    RestartRecord,
    RestartSnapshot,
    RunState,
    replaced_check,
    restart_checks,
)
from harness.judging.observations import judge
from harness.products.base import InstanceError
from harness.running.journey import FINISHED_STATUSES, Journey, PendingMessage
from harness.running.runner_looks import look_at_runner
from harness.running.sandbox_watch import runner_alive

# How long a task may sit unfinished with nothing running or queued on it before the restart counts as having lost
# the work (a product queues its own retry within seconds of starting again).
STALL_S = 30.0


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
        current = journey.task_now(task.id)
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
    runner = look_at_runner(journey.instance, run.identity)  # at once: the run was read just now
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
        runner=runner,
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


# ---- a restart while a person's answer is pending (the provider stories) ------------------------------


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
    api = journey.api
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
