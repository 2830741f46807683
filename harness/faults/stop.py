"""Stop, then a change of direction: the Stop step, what the user saw, what the product stored, what the disk says.

The workspace hashes are taken once the stopped runner's process group has
exited (checked by the harness itself, not only the product's word) and again
after the new answer: anything still writing after Stop changes them.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from harness.core.product_records import RecordId, Run, Task
from harness.core.records import CheckRecord
from harness.core.runner_look import GroupLook, RunnerLook
from harness.core.verdicts import StoryFailed, Unexercised
from harness.judging.observations import judge
from harness.products.views import TaskView
from harness.running.journey import Journey
from harness.running.runner_looks import look_at_runner, watch_group

STOP_TRIES = 3
# A run Stop was clicked on ends within seconds past the product's next scheduler tick; one still active after
# that never took the Stop.
STOP_END_WAIT_S = 30.0
# How long past the product's declared tick the harness keeps looking at a stopped runner's group that it found
# still running the moment the product said the run stopped (to say whether it went late or never).
GROUP_WATCH_S = 5.0


class StopRecord(BaseModel):
    """The Stop the story made, kept as a snapshot in the package."""

    run_id: RecordId
    pid: int | None
    product_says_group_gone: bool | None = None  # None: the product does not expose the fact
    lease: str | None = None  # a sandboxed runner's lease (its digest): the sandbox is what Stop must end
    requests_for_work: int = 0
    runner: RunnerLook | None = Field(
        None, description="the harness's look at the runner while it worked, just before Stop: its group, its sandbox"
    )
    after: RunnerLook | None = Field(
        None, description="the harness's look at the runner itself the moment the product said the run stopped"
    )
    looks: list[GroupLook] = Field(
        default_factory=list,
        description="the harness's looks at what was left of the runner's group (its sandbox's processes), the first"
        " the moment the product said the run stopped, more while anything was left, through the watched window",
    )
    watched_s: float = Field(0.0, description="the window the looks could cover: the product's tick and a margin")


class ShortReplyView(BaseModel):
    """What the user sees after a reload: the request's copies in the thread and the newest answer."""

    request_copies: int
    latest_reply: str | None
    status: str
    done_statuses: tuple[str, ...] = ("done",)  # the environment's: where a product's agents leave finished work


def stop_active_work(journey: Journey, task: Task, source: str, more_work: str) -> StopRecord:
    """Click Stop while the agent works (once it has saved ``source``) and wait until its process group exited.

    If the agent finished before Stop could land, the user asks for more
    work (``more_work``) and stops that instead: the story never passes
    without the fault. The stopped run is the one interruption it excuses.
    """
    page = journey.current_page()
    for requests_for_work in range(STOP_TRIES):
        target = journey.wait_until_saved(task, source)
        if target is not None:
            working = look_at_runner(journey.instance, target.identity)  # its group and sandbox, as the table has them
            journey.screenshot("before stop")
            with (
                journey.evidence.fault("Stop", f"run {target.id}"),
                journey.expecting("task-page-shown", f"showing run {target.id}, to stop it"),
            ):
                clicked = page.click_stop(target.id)
            tick_s = journey.cell.environment.scheduler_tick_s
            ended = _wait_until_ended(journey, target, STOP_END_WAIT_S + tick_s if clicked else None)
            if ended.status == "cancelled":
                return _stopped(journey, page, ended, working, requests_for_work)
            if clicked:  # Stop landed inside the agent's long step, and the run went on to its own end
                detail = f"Stop was clicked while run {target.id} was running; the run ended {ended.status}"
                journey.record_checks([CheckRecord(id="stop.run-cancelled", passed=False, detail=detail)], [])
                raise StoryFailed(detail)
        journey.evidence.note("stop missed", "the agent finished before Stop landed; asking for more work to stop")
        journey.send_message(more_work)
    raise Unexercised(f"the agent finished {STOP_TRIES} times before Stop could be clicked")


def require_short_reply(
    journey: Journey, task: Task, stopped: StopRecord, request: str, nonce: str, unchanged_since: dict[str, str]
) -> None:
    """After a reload: the request shown once, the answer holds the nonce, nothing else ran or wrote."""
    page = journey.current_page()
    with journey.expecting("task-page-shown", f"reloading task {task.id}"):
        page.reload()
    latest = page.latest_reply()
    view = ShortReplyView(
        request_copies=len(page.user_messages_with(request)),
        latest_reply=latest.body if latest else None,
        status=page.status(),
        done_statuses=journey.cell.environment.done_statuses,
    )
    journey.screenshot("short reply after reload")
    # The new direction and the answer to it, for the story's judged criterion (a judge reads the package only).
    journey.evidence.snapshot("short-reply", {"request": request, "reply": view.latest_reply})
    after = journey.record_workspace_hashes(task, "after reply")
    checks = judge(stop_checks, stopped, journey.api.task(task.id), request, nonce, view, unchanged_since, after)
    journey.record_checks(
        checks, ["snapshots/stop.json", "snapshots/workspace-after-stop.json", "snapshots/workspace-after-reply.json"]
    )


def _wait_until_ended(journey: Journey, run: Run, timeout: float | None) -> Run:
    """Until the run ended; after a click that landed, for ``timeout`` only (else it ends on its own)."""
    what = f"run {run.id} to end after Stop"
    return journey.wait(lambda: _ended(journey, run.id), what, "run-ended-after-stop", timeout)  # type: ignore[no-any-return]


def _ended(journey: Journey, run_id: RecordId) -> Run | None:
    run = journey.api.run(run_id)
    return None if run.active else run


def _stopped(journey: Journey, page: TaskView, run: Run, working: RunnerLook, requests_for_work: int) -> StopRecord:
    """The moment the product reports the run stopped, look at what is left of its runner: no grace period.

    A runner the product never signalled is still inside its long step then;
    only a product that really ended the process group (the sandbox's
    processes) passes. What the harness finds still running it keeps looking
    at through the product's declared tick, so the record says whether it
    went late or kept going.
    """
    with journey.expecting("stop-result-shown", f"the page reporting run {run.id} stopped"):
        page.wait_for_stop_result(run.id, timeout=journey.shown_budget())
    after = look_at_runner(journey.instance, run.identity)  # the runner itself, the moment the product said so
    window = journey.cell.environment.scheduler_tick_s + GROUP_WATCH_S
    looks = watch_group(journey.instance, run.identity, working, window)
    final = journey.api.run(run.id)
    journey.excuse_interruption(run)
    record = StopRecord(
        run_id=run.id,
        pid=run.identity.pid,
        product_says_group_gone=final.process_group_gone,
        requests_for_work=requests_for_work,
        lease=run.identity.lease.digest if run.identity.lease else None,
        runner=working,
        after=after,
        looks=looks,
        watched_s=window,
    )
    journey.evidence.snapshot("stop", record)
    left = looks[0].members if looks else []
    journey.evidence.note("stopped", f"run {run.id} cancelled; {len(left)} process(es) of its runner left at once")
    journey.screenshot("stopped")
    return record


def _later(task: Task, run: Run, than: Run) -> bool:
    """``run`` came after ``than``: ids are opaque, so order comes from the task's runs, oldest first."""
    order = [r.id for r in task.runs]
    return order.index(run.id) > order.index(than.id)


def _uninvited(task: Task, stopped: Run | None, answering: Run | None, asked_at: str | None) -> list[Run]:
    """Work nobody asked for after Stop: every run after the stopped one but the one that answered the user's one
    request, wherever it falls (before that answer or after it), and the answering run too if the product queued
    it before the request was stored.

    The last kind matters because a run the product starts on its own right
    after Stop reads the request mid-way when it comes, and so may be the one
    that writes the last reply: by position alone it would look invited.
    """
    order = [r.id for r in task.runs]
    if stopped is None:
        return []
    start = order.index(stopped.id) + 1
    return [
        r for r in task.runs[start:] if answering is None or r.id != answering.id or _earlier(r.queued_at, asked_at)
    ]


def _earlier(moment: str, than: str | None) -> bool:
    """``moment`` is before ``than`` (ISO 8601, as products write them; an unreadable time decides nothing)."""
    try:
        return than is not None and datetime.fromisoformat(moment) < datetime.fromisoformat(than)
    except (TypeError, ValueError):  # unreadable, or one of the two without a time zone
        return False


def stop_proven(record: StopRecord) -> list[CheckRecord]:
    """The Stop's proof, by the harness's own looks: the run's process group gone (a sandboxed runner's: its
    container's processes), and for a sandboxed runner its container no longer running."""
    checks = [process_group_gone(record)]
    if record.lease is not None:
        stopped = record.after is not None and not record.after.alive
        said = (
            ""
            if record.product_says_group_gone is None
            else f"; the product says gone={record.product_says_group_gone}"
        )
        checks.append(
            CheckRecord(
                id="stop.sandbox-gone",
                passed=stopped and record.product_says_group_gone is not False,
                detail=f"run {record.run_id} (lease {record.lease[:12]}): the engine shows its sandbox "
                f"{'stopped' if stopped else 'STILL RUNNING' if record.after else 'UNSEEN (no look kept)'} the moment"
                " the product said stopped" + said,
            )
        )
    return checks


def process_group_gone(record: StopRecord) -> CheckRecord:
    """Nothing of the stopped run's runner ran the moment the product said the run stopped.

    The harness saw the runner working before Stop (the group the process
    table put it in, or its container on the engine) and looked at that group
    itself the moment the product said the run stopped, never at a group id
    assumed from the product's pid. Where the product also reports the fact,
    its word must agree. A runner the harness never saw working has no group
    it could look for, which is not a group gone. What was still running then
    is followed through the product's declared tick for the detail: gone a
    little late fails as surely as never gone.
    """
    said = (
        "the product does not report it"
        if record.product_says_group_gone is None
        else f"the product says gone={record.product_says_group_gone}"
    )
    working = record.runner
    if working is None:  # a package from before the harness kept its looks
        return CheckRecord(
            id="stop.process-group-gone",
            passed=False,
            detail=f"no evidence: run {record.run_id}'s package keeps no look of the harness's at its runner; {said}",
        )
    if working.key is None or not record.looks:
        seen = "the harness never saw its runner working before Stop, so no group could be looked for"
        if working.key is not None:
            seen = "the harness kept no look at its group after Stop"
        return CheckRecord(
            id="stop.process-group-gone",
            passed=False,
            detail=f"run {record.run_id} (pid {record.pid}): {seen}; {said}",
        )
    where = f"group {working.group}" if working.group is not None else f"sandbox {working.looked_for}"
    first, last = record.looks[0], record.looks[-1]
    if not first.members:
        seen = f"no process left in its {where}"
    elif not last.members:
        seen = f"{len(first.members)} process(es) of its {where} still ran; the last went {last.at_s:g} s later"
    else:
        seen = f"{len(last.members)} process(es) of its {where} still ran {last.at_s:g} s later (watched {record.watched_s:g} s)"
    return CheckRecord(
        id="stop.process-group-gone",
        passed=not first.members and record.product_says_group_gone is not False,
        detail=f"run {record.run_id} ({working.looked_for}, {working.source}): {seen}; {said}",
    )


def changed_paths(before: dict[str, str], after: dict[str, str]) -> list[str]:
    return sorted(path for path in before.keys() | after.keys() if before.get(path) != after.get(path))


def stop_checks(
    record: StopRecord,
    task: Task,
    request: str,
    nonce: str,
    view: ShortReplyView,
    workspace_after_stop: dict[str, str],
    workspace_now: dict[str, str],
) -> list[CheckRecord]:
    stopped = next((r for r in task.runs if r.id == record.run_id), None)
    stored = [c for c in task.user_messages() if c.body.strip() == request.strip()]
    replies = task.agent_replies()
    answer = replies[-1] if replies else None
    answering = next((r for r in task.runs if answer is not None and r.id == answer.run_id), None)
    earlier_active = [r.id for r in task.runs if r.active and (answering is None or r.id != answering.id)]
    changed = changed_paths(workspace_after_stop, workspace_now)
    uninvited = _uninvited(task, stopped, answering, stored[0].created_at if stored else None)
    return [
        *stop_proven(record),
        CheckRecord(
            id="stop.run-cancelled",
            passed=stopped is not None and stopped.status == "cancelled" and stopped.error_code == "stopped_by_user",
            detail=f"run {record.run_id} is {stopped.status if stopped else 'missing'} ({stopped.error_code if stopped else '-'})",
        ),
        CheckRecord(
            id="stop.request-stored-once",
            passed=view.request_copies == 1 and len(stored) == 1,
            detail=f"after a reload the thread shows {view.request_copies} copy(ies); the product stored {len(stored)}",
        ),
        CheckRecord(
            id="stop.reply-has-nonce",
            passed=(
                view.latest_reply is not None
                and nonce in view.latest_reply
                and answering is not None
                and stopped is not None
                and _later(task, answering, stopped)
                and answering.status == "succeeded"
            ),
            detail=f"latest reply {'contains' if view.latest_reply and nonce in view.latest_reply else 'LACKS'} the nonce; "
            f"written by run {answering.id if answering else '-'} ({answering.status if answering else '-'})",
        ),
        CheckRecord(
            id="stop.no-earlier-run-active",
            passed=not earlier_active and view.status in view.done_statuses,
            detail=f"task {view.status}; earlier runs still active: {earlier_active or 'none'}",
        ),
        CheckRecord(
            id="stop.nothing-ran-after-stop",
            passed=not uninvited,
            detail="no run after the stopped one but the one that answered, and that one queued after the request"
            if not uninvited
            else "ran after Stop, uninvited: "
            + "; ".join(
                f"run {r.id} ({r.status}, cause {r.cause or 'not stated'},"
                f" {sum(1 for d in task.deliveries if d.run_id == r.id)} delivery(ies))"
                for r in uninvited
            ),
        ),
        CheckRecord(
            id="stop.workspace-unchanged",
            passed=not changed,
            detail=f"{len(workspace_now)} files, hashes unchanged since the process group exited"
            if not changed
            else f"changed after Stop: {', '.join(changed)}",
        ),
    ]
