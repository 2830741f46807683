"""Pause, Resume and Terminate on an agent's page: the steps, what the product stored, and the rules.

Pause lands while the agent works (once its run has saved the source, as
Stop does). The products we judge document what Pause does to that run: it
is cancelled (the testbed's ``team.py``; Paperclip's ``POST /agents/:id/pause``
cancels the agent's active runs), so the run must end cancelled. While the
agent is paused the person leaves it more work in the task's thread and
watches: no run of the agent may start. Resumed, the agent takes the work up
again without being asked twice. Terminated, it takes no more: a task for it
is refused, and no run of it starts.

Watching for "nothing starts" is a window, not a state: a product that would
start work on a waiting message does so within its own scheduling step (the
testbed's scheduler ticks every 0.1 s; Paperclip wakes the agent as it stores
the message), so ``WATCH_S`` gives it many times that.
"""

from __future__ import annotations

from typing import cast

from pydantic import BaseModel

from harness.core.product_records import Agent, RecordId, Run, Task
from harness.core.records import CheckRecord
from harness.core.verdicts import Unexercised
from harness.core.waiting import WaitTimeout, wait_for
from harness.judging.observations import judge
from harness.products.base import AgentControlsDriver, AgentView, ControlsApi
from harness.running.journey import Journey

WATCH_S = 5.0
PAUSE_SETTLES = "controls.pause-settles"
NOTHING_STARTS_PAUSED = "controls.nothing-starts-while-paused"
RESUME_CONTINUES = "controls.resume-continues"
TERMINATED_TAKES_NO_WORK = "controls.terminated-takes-no-work"


class Paused(BaseModel):
    """The pause the story made: whose run it cancelled, and every run of the agent known by then."""

    agent_id: RecordId
    run_id: RecordId
    known_run_ids: list[RecordId]


# ---- the rules ------------------------------------------------------------------------------


def pause_settled(run: Run) -> CheckRecord:
    """The run in progress when the agent was paused ended cancelled, as the product documents it."""
    passed = run.status == "cancelled"
    detail = f"run {run.id} was running when the agent was paused; it is now {run.status}" + (
        f" ({run.error_code})" if run.error_code else ""
    )
    return CheckRecord(id=PAUSE_SETTLES, passed=passed, detail=detail)


def no_new_runs(check_id: str, new: list[Run], what: str) -> CheckRecord:
    """No run of the agent besides those known before ``what``."""
    listed = ", ".join(f"run {r.id} on task {r.task_id} ({r.status})" for r in new)
    return CheckRecord(id=check_id, passed=not new, detail=f"{what}: " + (listed or "no run of the agent started"))


def work_continued(task: Task, paused: Paused) -> CheckRecord:
    """After Resume the agent ran the task again, without being asked twice, and its run succeeded."""
    later = [r for r in task.runs if str(r.agent_id) == str(paused.agent_id) and r.id not in paused.known_run_ids]
    passed = any(r.status == "succeeded" for r in later)
    listed = ", ".join(f"run {r.id} ({r.status})" for r in later) or "none"
    return CheckRecord(
        id=RESUME_CONTINUES, passed=passed, detail=f"runs of the agent on task {task.id} since: {listed}"
    )


def no_work_taken(offered: Task | None, new: list[Run]) -> CheckRecord:
    """The terminated agent was refused a new task, and no run of it started."""
    taken = [f"task {offered.id} was accepted for it"] if offered is not None else []
    taken += [f"run {r.id} on task {r.task_id} ({r.status})" for r in new]
    detail = "; ".join(taken) or "a task for it was refused, and no run of it started"
    return CheckRecord(id=TERMINATED_TAKES_NO_WORK, passed=not taken, detail=detail)


# ---- the steps --------------------------------------------------------------------------------


def pause_while_working(journey: Journey, task: Task, source: str) -> Paused:
    """Press Pause on the agent's page once its run on ``task`` has saved ``source``; the run must settle."""
    run = journey.wait_until_source_saved(task, source)
    agent = _assignee(journey, task)
    page = _agent_page(journey, agent.id)
    with journey.expecting("agent-controlled", f"opening {agent.name}'s page"):
        page.open()
    if not journey.api.run(run.id).active:
        raise Unexercised(f"run {run.id} ended before Pause could be pressed")
    with journey.expecting("agent-controlled", f"pausing {agent.name}"):
        page.pause(timeout=journey.shown_budget())
    journey.evidence.note("paused", f"{agent.name} paused while run {run.id} worked", kind="fault")
    journey.screenshot("agent paused")
    ended = _settled(journey, run)
    journey.excuse_interruption(ended)
    kept = journey.evidence.snapshot("paused-run", ended)
    journey.require(judge(pause_settled, ended), "the paused run settled", kept)
    return Paused(agent_id=agent.id, run_id=run.id, known_run_ids=[r.id for r in _runs_of(journey, agent.id)])


def leave_work_while_paused(journey: Journey, task: Task, paused: Paused, request: str) -> None:
    """Send ``request`` on the task while its agent is paused, and watch: no run of the agent may start."""
    journey.open_task(task)
    journey.send_message(request)
    new = _watch_for_new_runs(journey, paused)
    kept = journey.evidence.snapshot("while-paused", new)
    journey.require(
        judge(no_new_runs, NOTHING_STARTS_PAUSED, new, "while paused"), "nothing started while paused", kept
    )


def resume(journey: Journey, task: Task, paused: Paused) -> None:
    """Press Resume; the agent must take the waiting work up again on its own and finish it."""
    page = _agent_page(journey, paused.agent_id)
    with journey.expecting("agent-controlled", "resuming the agent"):
        page.open().resume(timeout=journey.shown_budget())
    journey.evidence.note("resumed", f"agent {paused.agent_id} resumed")
    journey.screenshot("agent resumed")
    journey.open_task(task)
    try:
        wait_for(lambda: _new_runs(journey, paused), timeout=journey.shown_budget(), what="a run after Resume")
    except WaitTimeout:
        journey.fail_check(
            RESUME_CONTINUES, f"no run of agent {paused.agent_id} started on task {task.id} after Resume"
        )
    finished = journey.wait_until_finished(task, "the resumed work")
    kept = journey.evidence.snapshot("resumed-work", finished)
    journey.require(judge(work_continued, finished, paused), "the work continued", kept)


def terminate(journey: Journey, task: Task, paused: Paused, title: str, body: str) -> None:
    """Press Terminate; then a task for the agent must be refused, and no run of it start. Ends on ``task``'s page."""
    page = _agent_page(journey, paused.agent_id)
    with journey.expecting("agent-controlled", "terminating the agent"):
        page.open().terminate(timeout=journey.shown_budget())
    journey.evidence.note("terminated", f"agent {paused.agent_id} terminated", kind="fault")
    name = next(agent.name for agent in journey.api.agents() if str(agent.id) == str(paused.agent_id))
    journey.readbacks.ended(f"agent {name}")  # a product may list no terminated agent: no look owed after a reload
    journey.screenshot("agent terminated")
    known = Paused(
        agent_id=paused.agent_id, run_id=paused.run_id, known_run_ids=[r.id for r in _runs_of(journey, paused.agent_id)]
    )
    offered = cast(ControlsApi, journey.api).offer_task(title, body, paused.agent_id)
    journey.evidence.note("work offered", "refused" if offered is None else f"task {offered.id} accepted")
    new = _watch_for_new_runs(journey, known)
    kept = journey.evidence.snapshot("after-terminate", {"offered": offered, "new_runs": new})
    journey.open_task(task)
    journey.require(judge(no_work_taken, offered, new), "the terminated agent took no work", kept)


# ---- reading the product ----------------------------------------------------------------------


def _assignee(journey: Journey, task: Task) -> Agent:
    return next(a for a in journey.api.agents() if str(a.id) == str(task.assignee_id))


def _agent_page(journey: Journey, agent_id: RecordId) -> AgentView:
    return cast(AgentControlsDriver, journey.driver).agent_page(journey.page, journey.instance.base_url, agent_id)


def _runs_of(journey: Journey, agent_id: RecordId) -> list[Run]:
    tasks = [journey.api.task(summary.id) for summary in journey.api.tasks()]
    return [run for task in tasks for run in task.runs if str(run.agent_id) == str(agent_id)]


def _new_runs(journey: Journey, paused: Paused) -> list[Run]:
    return [run for run in _runs_of(journey, paused.agent_id) if run.id not in paused.known_run_ids]


def _watch_for_new_runs(journey: Journey, paused: Paused) -> list[Run]:
    """The agent's runs that start within ``WATCH_S`` (none, on a product that keeps its controls)."""
    try:
        return wait_for(lambda: _new_runs(journey, paused), timeout=WATCH_S, what="a run of the agent")
    except WaitTimeout:
        return []


def _settled(journey: Journey, run: Run) -> Run:
    """The paused run once it ended; still active after what a page may take, it is judged as it is."""
    try:
        return wait_for(
            lambda: None if (current := journey.api.run(run.id)).active else current,
            timeout=journey.shown_budget(),
            what=f"run {run.id} to end after Pause",
        )
    except WaitTimeout:
        return journey.api.run(run.id)
