"""The faults a person causes, as journey steps: late feedback, a controller restart, Stop.

Each step injects its fault only once its premise holds (a run is active and
has saved its source), keeps the evidence of before and after, and decides
the named checks through ``harness.faults``. When the premise never comes
(the agent finished first) the attempt is ``unexercised``, never passed on
the final ZIP alone; when the agent failed on its own first, it failed.
"""

from __future__ import annotations

import secrets
import signal
from datetime import datetime
from typing import TYPE_CHECKING, Literal

from harness.driver.api import Agent, Run, Task, WaitTimeout
from harness.driver.instance import InstanceError
from harness.driver.pages import TaskPage
from harness.faults.delegation import delegation_checks
from harness.faults.restart import MessageState, RestartRecord, RestartSnapshot, RunState, restart_checks
from harness.faults.stop import ShortReplyView, StopRecord, stop_checks
from harness.records import CheckRecord
from harness.verdicts import InfrastructureFailed, StoryFailed, Unexercised
from oracle.tasks.slugify.contract import SOURCE_FILE

if TYPE_CHECKING:
    from harness.journey import Journey

FINISHED: Literal["finished"] = "finished"
STOP_TRIES = 3
GROUP_EXIT_WAIT_S = 15.0


class FaultSteps:
    """Mixed into ``Journey``: every attribute used here is set by ``Journey.__init__``."""

    restart_record: RestartRecord | None
    restart_paths: list[str]
    stop_record: StopRecord | None

    # ---- shared ---------------------------------------------------------------------

    def _record_checks(self: Journey, checks: list[CheckRecord], evidence: list[str]) -> None:
        for check in checks:
            self.evidence.check(check.id, check.passed, check.detail, evidence)

    def _ended_before(self: Journey, run: Run, fault: str) -> None:
        """The run ended on its own before the fault: nothing to judge, or a failure of its own."""
        if run.status == "succeeded":
            self.evidence.note("premise missed", f"run {run.id} succeeded before {fault}")
            raise Unexercised(f"run {run.id} finished before {fault} could be injected")
        self.wait(lambda: self.api.task(run.task_id).settled or None, f"task {run.task_id} to settle")
        raise StoryFailed(f"run {run.id} ended {run.status} ({run.error_code}) before {fault}")

    # ---- late feedback ----------------------------------------------------------------

    def require_arrived_while_active(self: Journey, run: Run) -> None:
        """The last message must have been stored while ``run`` was still going, or the premise was missed."""
        task = self.api.task(run.task_id)
        message = next(c for c in task.comments if c.id == self.last_message_id)
        current = self.api.run(run.id)
        if current.ended_at and datetime.fromisoformat(current.ended_at) < datetime.fromisoformat(message.created_at):
            self._ended_before(current, "the feedback arrived")
        self.evidence.note("feedback landed", f"message {message.id} stored while run {run.id} was {current.status}")

    def require_delegation(self: Journey, parent: Task, teammate: Agent, feedback: str) -> None:
        """One child for the teammate, the feedback in the child only, and a true final report by the lead."""
        current = self.api.task(parent.id)
        children = [self.api.task(child.id) for child in current.children]
        mate = next(agent for agent in self.api.agents() if agent.id == teammate.id)
        path = self.evidence.snapshot("delegation", {"parent": current, "children": children, "teammate": mate})
        self._record_checks(delegation_checks(current, children, self.lead, mate, feedback), [path])

    # ---- controller restart -------------------------------------------------------------

    def _restart_snapshot(self: Journey, moment: str, sig: signal.Signals, run: Run) -> RestartSnapshot:
        health = self.api.health()
        task = self.api.task(run.task_id)
        message = next((c for c in task.user_messages() if c.id == self.last_message_id), None)
        return RestartSnapshot(
            moment=moment, signal=sig.name, controller_instance_id=health["instance_id"], controller_pid=health["pid"],
            run=RunState.of(run), message=MessageState.of(message), workspace=self.api.workspace_hashes(run.task_id),
        )  # fmt: skip

    def _wait_until_persisted(self: Journey) -> None:
        """Until the product has stored the message whose Send was just pressed (no wait for the page)."""
        if self.pending_message is None:
            return
        task_id, text, known = self.pending_message

        def stored() -> int | None:
            fresh = [c.id for c in self.api.task(task_id).user_messages() if c.id not in known and c.body.strip() == text.strip()]
            return fresh[0] if fresh else None

        self.last_message_id = self.wait(stored, f"the message to be stored on task {task_id}")
        self.pending_message = None

    def restart_controller(self: Journey, run: Run, sig: signal.Signals = signal.SIGTERM) -> None:
        """Restart the product's controller under ``run`` while its runner keeps going; keep before and after.

        The restart counts only if the new controller re-adopted this very run;
        a run that finished while the old one went down leaves the attempt unexercised.
        """
        self._wait_until_persisted()
        current = self.api.run(run.id)
        if current.status != "running":
            self._ended_before(current, f"the {sig.name} restart")
        mark = max((a.id for a in self.api.activity()), default=0)
        before = self._restart_snapshot("before", sig, current)
        before_path = self.evidence.snapshot(f"restart-{sig.name.lower()}-before", before)
        try:
            self.instance.stop_controller(sig)
            kept_going = self.instance.process_alive(current.identity.pid or 0, current.identity.process_start_time or 0)
            self.instance.start()
        except InstanceError as error:
            raise InfrastructureFailed(f"the controller did not restart: {error}") from None
        adopted = any(a.kind == "run_adopted" and a.run_id == run.id and a.id > mark for a in self.api.activity())
        after_run = self.api.run(run.id)
        after = self._restart_snapshot("after", sig, after_run)
        after_path = self.evidence.snapshot(f"restart-{sig.name.lower()}-after", after)
        self.evidence.note("restart", f"controller {sig.name}, runner pid {current.identity.pid} alive meanwhile: {kept_going}")
        self.screenshot(f"after {sig.name} restart")
        self.restart_record = RestartRecord(before=before, after=after, runner_kept_going=kept_going, adopted=adopted)
        self.restart_paths = [before_path, after_path]
        self.evidence.note("restarted", f"run {run.id} is {after_run.status}; re-adopted: {adopted}")
        if not adopted and after_run.status == "succeeded":
            raise Unexercised(f"run {run.id} finished while the controller was going down; the restart hit no running job")

    def require_recovered(self: Journey, task: Task) -> None:
        """After the work: the same run and runner all along, the message read once, nothing recorded twice."""
        record = self.restart_record
        if record is None:
            raise RuntimeError("the story has not restarted the controller")
        final_run = self.api.run(record.before.run.id)
        final = self._restart_snapshot("final", signal.Signals[record.before.signal], final_run)
        final_path = self.evidence.snapshot(f"restart-{record.before.signal.lower()}-final", final)
        current = self.api.task(task.id)
        message = next((c for c in current.comments if c.id == self.last_message_id), None)
        page = self._current_page()
        page.reload()
        shown = len(page.user_messages_with(message.body)) if message else 0
        checks = restart_checks(record, final, current, shown_in_thread=shown)
        self._record_checks(checks, [*self.restart_paths, final_path])

    # ---- Stop and a change of direction -------------------------------------------------------

    def _work_to_stop(self: Journey, task_id: int) -> Run | Literal["finished"] | None:
        """A running run that has saved the source, or FINISHED once the task settled without one."""
        task = self.api.task(task_id)
        for run in task.runs:
            if run.status == "running" and run.identity.pid and any(
                r.tool == "write_file" and r.target == SOURCE_FILE for r in run.receipts
            ):
                return run
        return FINISHED if task.settled and task.status in {"done", "in_review", "blocked"} else None

    def stop_active_work(self: Journey, task: Task, more_work: str) -> Run:
        """Click Stop while the agent works and wait until its process group has exited.

        If the agent finished before Stop could land, the user asks for more
        work (``more_work``) and stops that instead: the story never passes
        without the fault. The stopped run is the one interruption it excuses.
        """
        page = self._current_page()
        for requests_for_work in range(STOP_TRIES):
            target = self.wait(lambda: self._work_to_stop(task.id), f"work to stop on task {task.id}")
            if isinstance(target, Run):
                self.screenshot("before stop")
                page.click_stop(target.id)
                ended = self.wait(lambda r=target: self._ended(r.id), f"run {target.id} to end")
                if ended.status == "cancelled":
                    return self._stopped(page, ended, requests_for_work)
            self.evidence.note("stop missed", "the agent finished before Stop landed; asking for more work to stop")
            self.send_message(more_work)
        raise Unexercised(f"the agent finished {STOP_TRIES} times before Stop could be clicked")

    def _ended(self: Journey, run_id: int) -> Run | None:
        run = self.api.run(run_id)
        return None if run.active else run

    def _stopped(self: Journey, page: TaskPage, run: Run, requests_for_work: int) -> Run:
        page.wait_for_stop_result(run.id, timeout=self.deadline.budget(30))
        pid = run.identity.pid
        try:
            self.api.wait_for(lambda: pid is None or not self.instance.process_group_alive(pid) or None,
                              timeout=self.deadline.budget(GROUP_EXIT_WAIT_S), what=f"process group {pid} to exit")  # fmt: skip
            group_gone = True
        except WaitTimeout:
            group_gone = False
        self.interrupted_run_ids.append(run.id)
        final = self.api.run(run.id)
        self.stop_record = StopRecord(run_id=run.id, pid=pid, product_says_group_gone=bool(final.process_group_gone),
                                      harness_saw_group_gone=group_gone, requests_for_work=requests_for_work)  # fmt: skip
        self.evidence.snapshot("stop", self.stop_record)
        self.evidence.note("stopped", f"run {run.id} cancelled; process group {pid} gone: {group_gone}")
        self.screenshot("stopped")
        return final

    def record_workspace_hashes(self: Journey, task: Task, moment: str) -> dict[str, str]:
        """The sha256 of every workspace file now, kept in the package under ``moment``."""
        hashes = self.api.workspace_hashes(task.id)
        self.evidence.snapshot(f"workspace-{moment}", hashes)
        self.evidence.note("workspace hashes", f"{len(hashes)} files {moment}")
        return hashes

    @staticmethod
    def fresh_nonce() -> str:
        """A token nobody could have written before this attempt."""
        return "N" + secrets.token_hex(5).upper()

    def require_short_reply(self: Journey, task: Task, request: str, nonce: str, unchanged_since: dict[str, str]) -> None:
        """After a reload: the request shown once, the answer holds the nonce, nothing else ran or wrote."""
        if self.stop_record is None:
            raise RuntimeError("the story has not stopped a run")
        page = self._current_page()
        page.reload()
        latest = page.latest_reply()
        view = ShortReplyView(request_copies=len(page.user_messages_with(request)),
                              latest_reply=latest.body if latest else None, status=page.status())  # fmt: skip
        self.screenshot("short reply after reload")
        after = self.record_workspace_hashes(task, "after reply")
        checks = stop_checks(self.stop_record, self.api.task(task.id), request, nonce, view, unchanged_since, after)
        self._record_checks(checks, ["snapshots/stop.json", "snapshots/workspace-after-stop.json",
                                     "snapshots/workspace-after-reply.json"])  # fmt: skip
