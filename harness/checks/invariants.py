"""Invariants: rules a product must keep at every moment, sampled while a story runs.

The lifecycle checks judge the records once the work is over; a product can
be wrong on the way and right at the end (a task shown Done while its run is
still writing, two runs active at once). These rules are checked on the same
product-neutral facts at every look, and a violation is kept with the moment
it was seen. Each rule is a pure function of one sample, so calibration and
unit tests can feed it facts by hand.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel

from harness.checks.lifecycle import ACTIVE_STATUSES, LifecycleFacts, RunFacts
from harness.core.records import CheckRecord

MIN_SAMPLES = 2
"""Looks an invariant must have had to count as held: one look is no evidence it held over the work."""


class Violation(BaseModel):
    """One broken rule about one subject (a task, a delivery), in words a reviewer can check."""

    invariant: str
    subject: str
    detail: str


Rule = Callable[[LifecycleFacts], list[Violation]]
# Checked on the bytes, not the facts: the watch downloads each new delivery once.
DELIVERY_BYTES = "delivery-bytes"
# Checked across samples by the watch: a run's runner never changes while the run lives.
RUNNER_IDENTITY = "runner-identity"


def done_while_active(facts: LifecycleFacts) -> list[Violation]:
    """A task is not finished while a run on it is still running (a queued run may wait on a finished task).

    Finished is the product's own word for it (``done_statuses``: vibe-kanban's agents leave their work
    ``in_review``), never one product's spelling."""
    active = {run.task_id: run.id for run in facts.runs if run.status == "running"}
    return [
        Violation(
            invariant="done-while-active",
            subject=f"task {task.id}",
            detail=f"task {task.id} is {task.status} while run {active[task.id]} is still running",
        )
        for task in facts.tasks
        if task.status in facts.done_statuses and task.id in active
    ]


def one_active_run(facts: LifecycleFacts) -> list[Violation]:
    """At most one active run per task, counted from the runs list (each run's own record); and where the product
    names a task's active run itself (``active-run-pointer``), that pointer names exactly it.

    A pointer a driver works out from the same runs list is not the product's claim: compared with the runs it
    came from it could never disagree, so it is not compared (a package from before declarations were kept is
    judged as it was).
    """
    pointer_claimed = facts.observes is None or "active-run-pointer" in facts.observes
    found = []
    for task in facts.tasks:
        active = sorted(run.id for run in facts.runs if run.task_id == task.id and run.status in ACTIVE_STATUSES)
        expected = active[0] if len(active) == 1 else None
        if len(active) > 1 or (pointer_claimed and task.active_run_id != expected):
            found.append(
                Violation(
                    invariant="one-active-run",
                    subject=f"task {task.id}",
                    detail=f"task {task.id} points at active run {task.active_run_id}; active runs: {active or 'none'}",
                )
            )
    return found


def unread_count(facts: LifecycleFacts) -> list[Violation]:
    """A task's unread counter equals its user messages that no run's own read receipts name yet.

    The truth is the runners' word (their read receipts), never the product's "consumed by run N" marks: the
    counter is worked out from those marks, so compared with them it could not disagree, and a product that
    marks a message read without handing it over would keep both in step. Judged where the product declares its
    own counter and receipts (``invariant.unread-count`` in harness.core.observable).
    """
    if facts.observes is not None and not {"unread-counter", "receipts"} <= set(facts.observes):
        return []  # not observable on this product: the recorder says so, from the declaration
    received = {message_id for run in facts.runs for message_id in run.received_message_ids or []}
    found = []
    for task in facts.tasks:
        unread = [m.id for m in facts.messages if m.task_id == task.id and m.id not in received]
        if task.unconsumed_messages != len(unread):
            found.append(
                Violation(
                    invariant="unread-count",
                    subject=f"task {task.id}",
                    detail=f"task {task.id} counts {task.unconsumed_messages} unread message(s); no run's read"
                    f" receipts name: {unread or 'none'}",
                )
            )
    return found


def runner_identity(run: RunFacts) -> tuple[object, ...] | None:
    """Where the run's runner is: instance, pid and start time, and a sandbox's lease; None until it is placed (a
    process with a pid, or a sandbox with a lease: a runner instance named before its spawn is not a place yet)."""
    placed = run.pid is not None or bool(run.lease)
    return (run.runner_instance_id, run.pid, run.process_started_at, run.lease) if placed else None


def runner_changed(known: tuple[object, ...], run: RunFacts) -> Violation | None:
    """A run's runner, once known (a process or a sandbox alike), is the same for the run's whole life."""
    now = runner_identity(run)
    if now is None or now == known:
        return None
    return Violation(
        invariant=RUNNER_IDENTITY,
        subject=f"run {run.id}",
        detail=f"run {run.id}'s runner changed from {known} to {now}",
    )


class WatchSummary(BaseModel):
    """How the watch sampled the work: every sample it read, and those that saw a run queued or running."""

    samples: int = 0
    active_samples: int | None = None  # None: a package from before this was kept


ACTIVE_INVARIANTS = frozenset({"done-while-active", "one-active-run", "runner-identity"})
"""Invariants about work in progress: a watch that never saw a run active has not watched them."""


def held(name: str, summary: WatchSummary) -> CheckRecord | None:
    """An invariant never seen broken holds only if the watch looked more than once, and (for one about work in
    progress) while a run was active; None when nothing was sampled (the watch says why)."""
    check_id = f"invariant.{name}"
    if not summary.samples:
        return None
    if summary.samples < MIN_SAMPLES:
        return CheckRecord(
            id=check_id, passed=False, detail="sampled once: one look is no evidence it held over the work"
        )
    if name in ACTIVE_INVARIANTS and not summary.active_samples:
        seen = "no evidence of" if summary.active_samples is None else "none of"
        reason = f"{seen} the {summary.samples} samples saw a run active: nothing it is about was watched"
        return CheckRecord.not_observable(check_id, reason)
    during = "" if name not in ACTIVE_INVARIANTS else f", {summary.active_samples} while a run was active"
    return CheckRecord(id=check_id, passed=True, detail=f"held in all {summary.samples} samples{during}")


RULES: tuple[Rule, ...] = (done_while_active, one_active_run, unread_count)
NAMES: tuple[str, ...] = ("done-while-active", "one-active-run", "unread-count", DELIVERY_BYTES, RUNNER_IDENTITY)


def violations(facts: LifecycleFacts) -> list[Violation]:
    return [violation for rule in RULES for violation in rule(facts)]
