"""The lifecycle grader: named checks over plain facts about tasks, runs, messages and deliveries.

Did the work settle the way a user expects? Each rule is one small function
returning one named check, so a failure names the rule it broke. The grader
reads plain facts rather than a product's API objects: any product's driver
can feed it (``harness.checks.facts`` does it for every driver's records), and calibration
feeds it synthetic records that each break exactly one rule.

Two excuses exist, and both are narrow on purpose:

- the one interruption the story caused (``interrupted_run_ids``): a run the
  story stopped may end ``cancelled`` by the user, or cut short by the
  graceful shutdown the story sent the product (``interrupted_by_shutdown``),
  nothing else, and a story may excuse only one;
- a run cancelled for workspace contention before any provider work, and only
  when its persisted record proves it (``is_contention_exempt``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime

from pydantic import BaseModel, Field

from harness.core.observable import Fact
from harness.core.product_records import BUDGET_PAUSED, PAUSED_BY_USER, SHUTDOWN_ERROR
from harness.core.records import CheckRecord

EXECUTED_STATUSES = {"running", "succeeded", "failed", "cancelled"}
ACTIVE_STATUSES = {"queued", "running"}
USER_STOP_ERRORS = {None, "stopped_by_user", PAUSED_BY_USER}  # a person's Stop, or their pausing the agent
# A run the product ended for a hard limit is named by that limit's own check, not by runs-succeeded.
BUDGET_ERROR = "budget_exceeded"
TIME_LIMIT_ERROR = "deadline_exceeded"
LIMIT_ERRORS = {BUDGET_ERROR, TIME_LIMIT_ERROR}
RUNS_PER_ASK = 2
"""Runs one thing asked of the agents may take: the work, and one follow-up (a child's result, a recovery)."""


class TaskFacts(BaseModel):
    id: str
    title: str = ""
    status: str
    assignee_id: str | None = None
    parent_id: str | None = None
    active_run_id: str | None = Field(None, description="the run the task still points at as active")
    unconsumed_messages: int = Field(0, description="user messages the product still counts as unread")


class RunFacts(BaseModel):
    id: str
    task_id: str
    agent_id: str | None = None
    status: str
    error: str | None = None
    runner_instance_id: str | None = None
    session_id: str | None = None
    pid: int | None = None
    process_started_at: float | None = None
    lease: str | None = Field(None, description="a sandboxed runner's lease, as a digest (RunLease.digest)")
    ended_at: datetime | None = None
    provider_work_started: bool | None = Field(
        None, description="False only when the product recorded that no agent work began"
    )
    received_message_ids: list[str] | None = Field(
        None, description="the messages the runner's own read steps say it received; None when it reported no reads"
    )
    cause: str | None = Field(
        None,
        description="why the product says it started the run (harness.core.product_records.RunCause); None: unsaid",
    )

    @property
    def has_identity(self) -> bool:
        """Runner instance id, and where it ran: a pid with its start time, or a sandbox's lease."""
        located = (self.pid is not None and self.process_started_at is not None) or bool(self.lease)
        return bool(self.runner_instance_id) and located

    @property
    def has_any_identity(self) -> bool:
        identities = (self.runner_instance_id, self.session_id, self.pid, self.process_started_at, self.lease)
        return any(value not in (None, "") for value in identities)


class MessageFacts(BaseModel):
    """A message the user sent, as the product stored it."""

    id: str
    task_id: str
    body: str
    consumed_by_run_id: str | None = None
    woke_run_ids: list[str] = Field(
        default_factory=list, description="runs the product started to hand this message over (a wake carrying it)"
    )


class DeliveryFacts(BaseModel):
    id: str
    task_id: str
    run_id: str | None = None
    sha256: str = ""
    created_at: datetime | None = None


class LifecycleFacts(BaseModel):
    tasks: list[TaskFacts]
    runs: list[RunFacts]
    messages: list[MessageFacts]
    deliveries: list[DeliveryFacts] = Field(default_factory=list)
    sent_messages: list[str] = Field(default_factory=list, description="bodies the story itself sent")
    interrupted_run_ids: list[str] = Field(
        default_factory=list, description="the run the story stopped on purpose (at most one is excused)"
    )
    lead_agent_id: str | None = Field(None, description="the agent the story handed its top-level tasks to")
    max_runs: int | None = Field(
        None, description="the story's declared bound on runs; None: the bound its script asks for (RUNS_PER_ASK)"
    )
    done_statuses: list[str] = Field(default_factory=lambda: ["done"], description="the product's finished statuses")
    observes: list[Fact] | None = Field(
        None,
        description="the facts the cell's driver declared before the run (ProductDeclaration.observes less what"
        " its environment hides); None: a package from before they were kept",
    )


def _check(check_id: str, problems: list[str], ok: str) -> CheckRecord:
    return CheckRecord(id=check_id, passed=not problems, detail="; ".join(problems) if problems else ok)


def is_contention_exempt(run: RunFacts) -> bool:
    """A pre-dispatch cancellation is not agent execution only when the record proves it.

    "No provider work started" must be recorded by the product (not inferred
    from silence), and the run must carry no process, session or runner
    identity: a run with a pid did execute, whatever it claims.
    """
    return run.status == "cancelled" and run.provider_work_started is False and not run.has_any_identity


def _excused_interruption(run: RunFacts, facts: LifecycleFacts) -> bool:
    """The story's one interruption is excused only as a user's Stop, the drain of the shutdown the story sent or
    the pause of the budget the story set, never as a later crash or loss."""
    stopped = run.status == "cancelled" and run.error in USER_STOP_ERRORS
    drained = run.status in ("failed", "cancelled") and run.error == SHUTDOWN_ERROR
    paused = run.status == "cancelled" and run.error == BUDGET_PAUSED
    excused = stopped or drained or paused
    return len(facts.interrupted_run_ids) == 1 and run.id in facts.interrupted_run_ids and excused


def tasks_done(facts: LifecycleFacts) -> CheckRecord:
    problems = [f"task {t.id} ({t.title!r}) is {t.status}" for t in facts.tasks if t.status not in facts.done_statuses]
    return _check("lifecycle.tasks-done", problems, f"all {len(facts.tasks)} tasks {' or '.join(facts.done_statuses)}")


def settled(facts: LifecycleFacts) -> CheckRecord:
    problems = [f"run {r.id} is still {r.status}" for r in facts.runs if r.status in ACTIVE_STATUSES]
    return _check("lifecycle.settled", problems, "no run queued or running")


def runner_identity(facts: LifecycleFacts) -> CheckRecord:
    problems = [
        f"run {r.id} ({r.status}) has no runner identity"
        for r in facts.runs
        if r.status in EXECUTED_STATUSES and not r.has_identity and not is_contention_exempt(r)
    ]
    return _check(
        "lifecycle.runner-identity", problems, "every executed run carries runner id, and pid and start time or a lease"
    )


def runs_succeeded(facts: LifecycleFacts) -> CheckRecord:
    problems = []
    if len(facts.interrupted_run_ids) > 1:
        problems.append(f"a story may excuse one interruption, not {len(facts.interrupted_run_ids)}")
    for run in facts.runs:
        if run.status == "succeeded" or is_contention_exempt(run) or _excused_interruption(run, facts):
            continue
        if run.status in ACTIVE_STATUSES:
            continue  # not ended yet: lifecycle.settled names it
        if run.status == "failed" and run.error in LIMIT_ERRORS:
            continue  # ended by a hard limit: lifecycle.within-budget or lifecycle.within-time-limit names it
        why = f"run {run.id} ended {run.status}" + (f" ({run.error})" if run.error else "")
        if run.id in facts.interrupted_run_ids:
            why += ", though the story's interruption may only end as the user's Stop, the shutdown's drain or a budget pause"
        elif run.status == "cancelled" and run.provider_work_started is False:
            why += ", claiming no provider work yet carrying a process, session or runner identity"
        problems.append(why)
    return _check("lifecycle.runs-succeeded", problems, "every run succeeded or was the interruption the story caused")


def _ended_at_limit(facts: LifecycleFacts, error: str, limit: str) -> list[str]:
    return [
        f"run {r.id} was ended at {limit} ({error})" for r in facts.runs if r.status == "failed" and r.error == error
    ]


def within_budget(facts: LifecycleFacts) -> CheckRecord:
    """An agent that spends past its budget is stopped by the product; the attempt still fails, under this name."""
    problems = _ended_at_limit(facts, BUDGET_ERROR, "the budget hard stop")
    return _check("lifecycle.within-budget", problems, "no run reached a budget hard stop")


def within_time_limit(facts: LifecycleFacts) -> CheckRecord:
    """An agent that never finishes is ended at its wall-clock limit; that is a failure of the work, named here."""
    problems = _ended_at_limit(facts, TIME_LIMIT_ERROR, "its wall-clock limit")
    return _check("lifecycle.within-time-limit", problems, "no run reached its wall-clock limit")


def run_bound(facts: LifecycleFacts) -> tuple[int, str]:
    """The bound on runs and where it comes from: the story's declaration, else what its script asked for."""
    if facts.max_runs is not None:
        return facts.max_runs, "declared by the story"
    asked = len(facts.tasks) + len(facts.sent_messages) + len(facts.interrupted_run_ids)
    why = (
        f"{RUNS_PER_ASK} per thing asked: {len(facts.tasks)} task(s), {len(facts.sent_messages)} message(s),"
        f" {len(facts.interrupted_run_ids)} interruption(s)"
    )
    return RUNS_PER_ASK * asked, why


def bounded_runs(facts: LifecycleFacts) -> CheckRecord:
    """No more runs than the story's own script asks for: a product that runs work again and again is spending the
    user's money on nothing anybody asked, however few runs that is against a bound for every story."""
    count = len(facts.runs)
    bound, why = run_bound(facts)
    problems = [f"{count} run records exceed the bound of {bound} ({why})"] if count > bound else []
    return _check("lifecycle.bounded-runs", problems, f"{count} run records (bound {bound}, {why})")


def parent_owned_by_lead(facts: LifecycleFacts) -> CheckRecord:
    """The tasks the user handed to the lead stay the lead's: no teammate takes one over or runs on it."""
    if facts.lead_agent_id is None:
        return _check("lifecycle.parent-owned-by-lead", [], "no lead named by the story")
    top = {t.id: t for t in facts.tasks if t.parent_id is None}
    problems = [
        f"task {t.id} is assigned to agent {t.assignee_id}"
        for t in top.values()
        if t.assignee_id != facts.lead_agent_id
    ]
    problems += [
        f"run {r.id} on task {r.task_id} was executed by agent {r.agent_id}"
        for r in facts.runs
        if r.task_id in top and r.agent_id != facts.lead_agent_id
    ]
    return _check("lifecycle.parent-owned-by-lead", problems, f"{len(top)} top-level task(s) owned and run by the lead")


def messages_stored_once(facts: LifecycleFacts) -> CheckRecord:
    problems = []
    for body in facts.sent_messages:
        count = sum(1 for m in facts.messages if m.body.strip() == body.strip())
        if count != 1:
            problems.append(f"message {body[:40]!r} stored {count} times")
    return _check(
        "lifecycle.messages-stored-once", problems, f"{len(facts.sent_messages)} sent messages stored once each"
    )


def messages_consumed(facts: LifecycleFacts) -> CheckRecord:
    """Every user message read by a run that succeeded, or by the run the user then stopped on purpose, and that
    run's own read receipts name it (judged only where the product declares both ``message-read`` and
    ``receipts``: a reader without receipts is a declared fact missing, a failure)."""
    readers = {r.id: r for r in facts.runs if r.status == "succeeded" or _excused_interruption(r, facts)}
    problems = [
        f"message {m.id} was never consumed"
        if m.consumed_by_run_id is None
        else f"message {m.id} was consumed by run {m.consumed_by_run_id}, which did not succeed"
        for m in facts.messages
        if m.consumed_by_run_id not in readers
    ]
    # The product's "consumed by run N" is its word; run N's own read steps must agree.
    problems += [
        f"message {m.id} is marked read by run {m.consumed_by_run_id}, but that run's reads never received it"
        for m in facts.messages
        if m.consumed_by_run_id in readers
        and readers[m.consumed_by_run_id].received_message_ids is not None
        and m.id not in (readers[m.consumed_by_run_id].received_message_ids or [])
    ]
    # The product declared read receipts (the check is judged only where it does): a run the product says read a
    # message yet whose runner reported no read at all is missing a declared fact, never a pass.
    problems += [
        f"the product declared receipts; run {run_id} has none, so its reading message(s)"
        f" {', '.join(sorted(m.id for m in facts.messages if m.consumed_by_run_id == run_id))} is unconfirmed"
        for run_id in sorted(
            {
                m.consumed_by_run_id
                for m in facts.messages
                if m.consumed_by_run_id in readers and readers[m.consumed_by_run_id].received_message_ids is None
            }
        )
    ]
    return _check("lifecycle.messages-consumed", problems, "every user message consumed by a successful run")


def messages_handed_once(facts: LifecycleFacts) -> CheckRecord:
    """A message is handed to the work once: the runners' own read receipts name it in one read of one run.

    A product that hands a message again (to another run, on any task, or to
    the same run in a later read) makes the agent act on it twice: a second
    session, a second reply, with a real model a second bill. The hand-overs
    are counted from the readers' receipts, the runner's side of the
    exchange, whatever the product records of who consumed the message; the
    runs a product records waking for the message (``woke_run_ids``, a wake
    that carries it, Paperclip's way of handing a comment over) count beside
    them, since that is the product's own word that it handed the message to
    them.
    """
    problems = []
    for m in facts.messages:
        reads = [r.id for r in facts.runs for received in r.received_message_ids or [] if received == m.id]
        handed_to = list(dict.fromkeys([*reads, *m.woke_run_ids]))
        problems += [
            f"message {m.id} was read by run {run_id} {reads.count(run_id)} times"
            for run_id in handed_to
            if reads.count(run_id) > 1
        ]
        if len(handed_to) > 1:
            problems.append(
                f"message {m.id} was handed to runs {handed_to} (read by {sorted(set(reads)) or 'none'}, woken for by"
                f" the product: {m.woke_run_ids or 'none'})"
            )
    return _check("lifecycle.messages-handed-once", problems, "every message handed to one run, in one read")


def messages_acted_once(facts: LifecycleFacts) -> CheckRecord:
    """A message reaches the work once across the runs that received it: at most one of them delivers for it.

    A product may hand one message to several runs (a follow-up run for a
    comment that arrived mid-run is one's documented design), and each may
    read it; the work must still answer it once. Two runs that both received
    it and both delivered on its task did the requested work twice.
    """
    problems = []
    for m in facts.messages:
        receivers = {m.consumed_by_run_id, *m.woke_run_ids} | {
            r.id for r in facts.runs if m.id in (r.received_message_ids or [])
        }
        delivering = sorted(
            {d.run_id for d in facts.deliveries if d.task_id == m.task_id and d.run_id and d.run_id in receivers}
        )
        if len(delivering) > 1:
            problems.append(f"message {m.id} was received and answered with a delivery by runs {delivering}")
    return _check("lifecycle.messages-acted-once", problems, "every message answered by at most one delivering run")


def no_pending_bookkeeping(facts: LifecycleFacts) -> CheckRecord:
    """What the product still owes once the work is over: unread counters and active-run pointers."""
    runs = {r.id: r for r in facts.runs}
    problems = [
        f"task {t.id} still counts {t.unconsumed_messages} unread message(s)"
        for t in facts.tasks
        if t.unconsumed_messages
    ]
    for task in facts.tasks:
        pointed = runs.get(task.active_run_id) if task.active_run_id else None
        if task.active_run_id and (pointed is None or pointed.status not in ACTIVE_STATUSES):
            problems.append(f"task {task.id} still points at run {task.active_run_id} as active, which has ended")
    return _check("lifecycle.no-pending-bookkeeping", problems, "no unread counters or stale active-run pointers")


def runs_have_a_cause(facts: LifecycleFacts) -> CheckRecord:
    """Every run is explained by what asked for it, and the records bear the explanation out.

    A product that starts a run nobody asked for (a finished task run again,
    a stopped one taken up by itself) spends the user's money on work no one
    wanted, and a bound on the number of runs hides it. The cause the product
    gives must hold in its own records: an assignment is one its agent has
    not already done (no earlier run of it on the task succeeded); a user
    message is one on its task that woke the run or that no earlier run had
    consumed (whether this run got it is lifecycle.messages-consumed's
    question); a recovery follows a run on the task that failed (a user's
    Stop is not a fault); a person's decision answers a request an earlier
    run on the task made; a child's result is a child task's run that
    succeeded before it; a hand-off follows another agent's run on the task.
    None is taken as the product states it. The check is judged only where
    the product declares run causes (``run-cause``), so a run without one is
    a declared fact gone missing: a failure naming the run.
    """
    problems = [
        f"the product declared run-cause; run {run.id} on task {run.task_id} has none"
        for run in facts.runs
        if run.cause is None
    ]
    problems += [f"run {run.id} on task {run.task_id} ({_did(run, facts)}): {why}" for run, why in _unexplained(facts)]
    return _check(
        "lifecycle.runs-have-a-cause",
        problems,
        f"each of the {len(facts.runs)} runs' stated cause is borne out by the records",
    )


def _unexplained(facts: LifecycleFacts) -> list[tuple[RunFacts, str]]:
    found: list[tuple[RunFacts, str]] = []
    for index, run in enumerate(facts.runs):
        earlier = [r for r in facts.runs[:index] if r.task_id == run.task_id]
        why = None if run.cause is None else _cause_problem(run, earlier, facts)
        if why is not None:
            found.append((run, why))
    return found


def _cause_problem(run: RunFacts, earlier: list[RunFacts], facts: LifecycleFacts) -> str | None:
    """Why ``run``'s stated cause does not hold (``earlier``: the runs before it on its task, oldest first); None if it does."""
    if run.cause == "assignment":
        done = [r.id for r in earlier if r.agent_id == run.agent_id and r.status == "succeeded"]
        return f"started as an assignment, but its agent had already done the task (run {done[-1]})" if done else None
    if run.cause == "user_message":
        before = {r.id for r in earlier}
        waiting = [
            m.id
            for m in facts.messages
            if m.task_id == run.task_id and (run.id in m.woke_run_ids or m.consumed_by_run_id not in before)
        ]
        return None if waiting or run.received_message_ids else "started for a user message, but none was waiting"
    if run.cause == "recovery":
        failed = [r.id for r in earlier if r.status == "failed"]
        return None if failed else "started as a recovery, but no earlier run on its task failed"
    if run.cause == "resumed":
        paused = [r.id for r in earlier if r.error in (BUDGET_PAUSED, PAUSED_BY_USER)]
        return None if paused else "started as a resumption, but no earlier run on its task was paused"
    if run.cause == "user_decision":
        asked = [r.id for r in earlier]
        return None if asked else "started for a person's decision, but no earlier run on its task asked for one"
    if run.cause == "child_result":
        return _child_result_problem(run, facts)
    if run.cause == "handoff":
        others = [r.id for r in earlier if r.agent_id != run.agent_id]
        return None if others else "started as a hand-off, but no earlier run of another agent on its task handed it on"
    return f"started for {run.cause!r}, which is none of the causes a run may have"


def _child_result_problem(run: RunFacts, facts: LifecycleFacts) -> str | None:
    """A child's result is a child task of the run's task with a run that succeeded (or a delivery), not after the
    run it woke ended."""
    children = {t.id for t in facts.tasks if t.parent_id == run.task_id}
    results = [
        r
        for r in facts.runs
        if r.task_id in children
        and r.status == "succeeded"
        and (run.ended_at is None or r.ended_at is None or r.ended_at <= run.ended_at)
    ]
    if results:
        return None
    if not children:
        return "started for a child's result, but its task has no child task"
    return "started for a child's result, but no child task's run had succeeded by then"


def _did(run: RunFacts, facts: LifecycleFacts) -> str:
    """What the run did, as its records show: how it ended, what it delivered, the cause the product gave."""
    error = f" ({run.error})" if run.error else ""
    delivered = [d.id for d in facts.deliveries if d.run_id == run.id]
    made = f", delivered {', '.join(delivered)}" if delivered else ", delivered nothing"
    return f"{run.status}{error}{made}, cause {run.cause}"


def parent_after_child(facts: LifecycleFacts) -> CheckRecord:
    """A parent may finish only after each child's last run and final delivery."""
    problems = []
    for parent in facts.tasks:
        children = [t for t in facts.tasks if t.parent_id == parent.id]
        if not children:
            continue
        finished = _last_end(facts, parent.id)
        for child in children:
            child_end = max(
                [e for e in (_last_end(facts, child.id), _last_delivery(facts, child.id)) if e is not None],
                default=None,
            )
            if finished is None or child_end is None:
                problems.append(f"cannot order parent {parent.id} and child {child.id}: a run has no end time")
            elif finished < child_end:
                problems.append(
                    f"parent {parent.id} finished at {finished.isoformat()} before child {child.id} at {child_end.isoformat()}"
                )
    return _check("lifecycle.parent-after-child", problems, "every parent finished after its children")


def _last_end(facts: LifecycleFacts, task_id: str) -> datetime | None:
    ends = [r.ended_at for r in facts.runs if r.task_id == task_id]
    return None if not ends or None in ends else max(e for e in ends if e is not None)


def _last_delivery(facts: LifecycleFacts, task_id: str) -> datetime | None:
    return max((d.created_at for d in facts.deliveries if d.task_id == task_id and d.created_at), default=None)


LIFECYCLE_CHECKS: tuple[Callable[[LifecycleFacts], CheckRecord], ...] = (
    tasks_done,
    settled,
    runner_identity,
    runs_succeeded,
    within_budget,
    within_time_limit,
    bounded_runs,
    parent_owned_by_lead,
    messages_stored_once,
    messages_consumed,
    messages_handed_once,
    messages_acted_once,
    no_pending_bookkeeping,
    parent_after_child,
    runs_have_a_cause,
)
CHECK_IDS: tuple[str, ...] = tuple(f"lifecycle.{check.__name__.replace('_', '-')}" for check in LIFECYCLE_CHECKS)


def grade_lifecycle(
    facts: LifecycleFacts, checks: Iterable[Callable[[LifecycleFacts], CheckRecord]] = LIFECYCLE_CHECKS
) -> list[CheckRecord]:
    return [check(facts) for check in checks]
