"""Lifecycle calibration: synthetic run records, each broken in one way, each rejected by its own check.

A lifecycle grader that accepts a crashed run or a teammate working on the
lead's task would pass bad attempts silently; so every rule is fed a record
that breaks exactly that rule, and the row is right only when that check,
and no other, fails. Two healthy records (one with a genuine pre-dispatch
contention cancellation) must pass every check.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from calibration.runner import Row
from harness.checks.lifecycle import DeliveryFacts, LifecycleFacts, MessageFacts, RunFacts, TaskFacts, grade_lifecycle
from harness.core.observable import FACTS, Fact, missing_facts
from harness.core.records import CheckRecord

LEAD, MATE = "1", "2"
T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
FEEDBACK = "One more requirement: add --max-length."


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def executed(
    run_id: str,
    task_id: str,
    agent_id: str,
    ended: float,
    status: str = "succeeded",
    error: str | None = None,
    cause: str | None = "assignment",
) -> RunFacts:
    """A run that really executed: runner id, pid and process start time, an end time; ``cause``: what asked for it
    (a run's first on its task is an assignment; the product declares causes, so None is one gone missing)."""
    return RunFacts(
        cause=cause,
        id=run_id,
        task_id=task_id,
        agent_id=agent_id,
        status=status,
        error=error,
        runner_instance_id=f"runner-{run_id}",
        pid=4000 + int(run_id),
        process_started_at=1.7e9 + int(run_id),
        ended_at=None if status in {"queued", "running"} else at(ended),
    )


def healthy() -> LifecycleFacts:
    """A lead delegating to a teammate; the user's feedback lands in the child and is read there."""
    return LifecycleFacts(
        tasks=[
            TaskFacts(id="10", title="parent", status="done", assignee_id=LEAD),
            TaskFacts(id="11", title="child", status="done", assignee_id=MATE, parent_id="10"),
        ],
        runs=[
            executed("100", "10", LEAD, ended=20, cause="assignment"),
            executed("101", "11", MATE, ended=12, cause="assignment").model_copy(
                update={"received_message_ids": ["50"]}
            ),
        ],
        messages=[MessageFacts(id="50", task_id="11", body=FEEDBACK, consumed_by_run_id="101")],
        deliveries=[DeliveryFacts(id="7", task_id="11", run_id="101", sha256="a" * 64, created_at=at(11))],
        sent_messages=[FEEDBACK],
        lead_agent_id=LEAD,
    )


class LifecycleCase(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    name: str
    expected_check: str | None  # None: every check must pass
    breaks: Callable[[LifecycleFacts], None]
    observes: tuple[Fact, ...] = FACTS  # what the record's product exposes: a check needing more is not judged


def _stored_twice(f: LifecycleFacts) -> None:
    f.messages.append(MessageFacts(id="51", task_id="11", body=FEEDBACK, consumed_by_run_id="101"))
    f.runs[1].received_message_ids = ["50", "51"]


def _contention_before_work(f: LifecycleFacts) -> None:
    f.runs.insert(
        1,
        RunFacts(
            id="99",
            task_id="11",
            agent_id=MATE,
            status="cancelled",
            error="workspace_contention",
            provider_work_started=False,
            cause="assignment",
        ),
    )


def _contention_with_pid(f: LifecycleFacts) -> None:
    claimed = executed("99", "11", MATE, ended=5, status="cancelled", error="workspace_contention")
    f.runs.insert(1, claimed.model_copy(update={"provider_work_started": False}))


def _too_many_runs(f: LifecycleFacts) -> None:
    f.runs += [executed(str(200 + n), "11", MATE, ended=13 + n * 0.1, cause="handoff") for n in range(11)]


def _still_running(f: LifecycleFacts) -> None:
    f.runs.append(executed("102", "11", MATE, ended=0, status="running", cause="handoff"))


def _interrupted_then_failed(f: LifecycleFacts) -> None:
    f.runs.insert(1, executed("98", "11", MATE, ended=6, status="failed", error="process_lost"))
    f.interrupted_run_ids = ["98"]


def _two_interruptions(f: LifecycleFacts) -> None:
    f.runs.insert(1, executed("97", "11", MATE, ended=4, status="cancelled", error="stopped_by_user"))
    f.runs.insert(2, executed("98", "11", MATE, ended=6, status="cancelled", error="stopped_by_user"))
    f.interrupted_run_ids = ["97", "98"]


def _drained_then_retried(f: LifecycleFacts) -> None:
    """The story's graceful shutdown drained the teammate's first run; a retry finished the work."""
    f.runs.insert(1, executed("98", "11", MATE, ended=6, status="failed", error="interrupted_by_shutdown"))
    f.interrupted_run_ids = ["98"]


def _follow_up_run_delivers_again(f: LifecycleFacts) -> None:
    """A follow-up run received the feedback the first run had already answered, and delivered the work again."""
    f.runs.append(
        executed("102", "11", MATE, ended=13, cause="user_message").model_copy(update={"received_message_ids": ["50"]}),
    )
    f.deliveries.append(DeliveryFacts(id="8", task_id="11", run_id="102", sha256="b" * 64, created_at=at(12.5)))


def _failed_with(error: str) -> Callable[[LifecycleFacts], None]:
    """The teammate's first run ended failed by the product for ``error`` (a hard limit), then a retry succeeded."""
    return lambda f: f.runs.insert(1, executed("98", "11", MATE, ended=6, status="failed", error=error))


def _set(path: str, value: object) -> Callable[[LifecycleFacts], None]:
    """A one-field change, e.g. ``tasks.1.status``."""

    def change(f: LifecycleFacts) -> None:
        *parents, field = path.split(".")
        target: object = f
        for part in parents:
            target = target[int(part)] if part.isdigit() else getattr(target, part)  # type: ignore[index]
        setattr(target, field, value)

    return change


LIFECYCLE_CASES: tuple[LifecycleCase, ...] = (
    LifecycleCase(name="healthy-delegation", expected_check=None, breaks=lambda f: None),
    LifecycleCase(name="contention-cancel-before-any-work", expected_check=None, breaks=_contention_before_work),
    LifecycleCase(
        name="missing-runner-identity",
        expected_check="lifecycle.runner-identity",
        breaks=_set("runs.1.runner_instance_id", None),
    ),
    LifecycleCase(
        name="unexpected-crash",
        expected_check="lifecycle.runs-succeeded",
        breaks=lambda f: f.runs.insert(1, executed("98", "11", MATE, ended=6, status="failed", error="runner_crashed")),
    ),
    LifecycleCase(
        name="teammate-run-on-parent",
        expected_check="lifecycle.parent-owned-by-lead",
        breaks=lambda f: f.runs.insert(1, executed("98", "10", MATE, ended=15)),
    ),
    LifecycleCase(
        name="answer-left-in-review", expected_check="lifecycle.tasks-done", breaks=_set("tasks.1.status", "in_review")
    ),
    LifecycleCase(name="run-still-running", expected_check="lifecycle.settled", breaks=_still_running),
    LifecycleCase(
        name="unexcused-cancellation",
        expected_check="lifecycle.runs-succeeded",
        breaks=lambda f: f.runs.insert(
            1, executed("98", "11", MATE, ended=6, status="cancelled", error="stopped_by_user")
        ),
    ),
    LifecycleCase(
        name="contention-exemption-with-pid", expected_check="lifecycle.runs-succeeded", breaks=_contention_with_pid
    ),
    LifecycleCase(
        name="stopped-at-budget", expected_check="lifecycle.within-budget", breaks=_failed_with("budget_exceeded")
    ),
    LifecycleCase(
        name="ended-at-time-limit",
        expected_check="lifecycle.within-time-limit",
        breaks=_failed_with("deadline_exceeded"),
    ),
    LifecycleCase(name="more-than-12-runs", expected_check="lifecycle.bounded-runs", breaks=_too_many_runs),
    LifecycleCase(
        name="interrupted-run-later-failed", expected_check="lifecycle.runs-succeeded", breaks=_interrupted_then_failed
    ),
    LifecycleCase(
        name="two-interruptions-excused", expected_check="lifecycle.runs-succeeded", breaks=_two_interruptions
    ),
    LifecycleCase(
        name="feedback-stored-twice",
        expected_check="lifecycle.messages-stored-once",
        breaks=_stored_twice,
    ),
    LifecycleCase(
        name="feedback-never-consumed",
        expected_check="lifecycle.messages-consumed",
        breaks=_set("messages.0.consumed_by_run_id", None),
    ),
    LifecycleCase(
        name="consumed-feedback-woke-another-run",
        expected_check="lifecycle.messages-handed-once",
        breaks=_set("messages.0.woke_run_ids", ["101", "102"]),
    ),
    LifecycleCase(name="drained-run-excused", expected_check=None, breaks=_drained_then_retried),
    LifecycleCase(
        name="follow-up-run-delivers-again",
        expected_check="lifecycle.messages-acted-once",
        breaks=_follow_up_run_delivers_again,
        # A product that hands a message to a follow-up run by design and never records who read it (Paperclip):
        # with no message-read, acted-once is what says the work was done twice.
        observes=("message-wakes", "runner-identity", "receipts", "run-cause"),
    ),
    LifecycleCase(
        name="consumed-feedback-handed-to-another-run",
        expected_check="lifecycle.messages-handed-once",
        breaks=lambda f: f.runs.append(
            executed("102", "11", MATE, ended=13, cause="user_message").model_copy(
                update={"received_message_ids": ["50"]}
            )
        ),
    ),
    LifecycleCase(
        name="unread-counter-left",
        expected_check="lifecycle.no-pending-bookkeeping",
        breaks=_set("tasks.1.unconsumed_messages", 1),
    ),
    LifecycleCase(
        name="stale-active-run-pointer",
        expected_check="lifecycle.no-pending-bookkeeping",
        breaks=_set("tasks.0.active_run_id", "100"),
    ),
    LifecycleCase(
        name="finished-task-run-again",
        expected_check="lifecycle.runs-have-a-cause",
        breaks=lambda f: f.runs.append(executed("102", "11", MATE, ended=14, cause="assignment")),
    ),
    LifecycleCase(
        name="run-for-a-message-it-never-got",
        expected_check="lifecycle.runs-have-a-cause",
        breaks=lambda f: f.runs.append(executed("102", "10", LEAD, ended=22, cause="user_message")),
    ),
    LifecycleCase(
        name="recovery-with-nothing-lost",
        expected_check="lifecycle.runs-have-a-cause",
        breaks=lambda f: f.runs.append(executed("102", "11", MATE, ended=14, cause="recovery")),
    ),
    LifecycleCase(
        name="parent-finished-before-child",
        expected_check="lifecycle.parent-after-child",
        breaks=_set("runs.0.ended_at", at(10)),
    ),
)


def _failed(case: LifecycleCase) -> list[CheckRecord]:
    """The checks the case's record fails, of those its product could be judged on."""
    facts = healthy()
    case.breaks(facts)
    return [check for check in grade_lifecycle(facts) if check.failed and not missing_facts(check.id, case.observes)]


def failing_checks(case: LifecycleCase) -> list[str]:
    return [check.id for check in _failed(case)]


def row_for(case: LifecycleCase) -> Row:
    failed = _failed(case)
    ids = [check.id for check in failed]
    ok = ids == ([] if case.expected_check is None else [case.expected_check])
    return Row(
        suite="lifecycle",
        delivery=case.name,
        mode="-",
        expected="pass" if case.expected_check is None else f"fail {case.expected_check}",
        got="pass" if not failed else "fail",
        deciding=", ".join(ids) or "-",
        detail="; ".join(check.detail for check in failed)[:300],
        ok=ok,
    )


def run_lifecycle_suite(keep: Path | None = None) -> list[Row]:
    """Records built here, judged here: a wrong row's detail is all its evidence (``keep`` is not used)."""
    return [row_for(case) for case in LIFECYCLE_CASES]
