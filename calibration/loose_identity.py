"""Loose rules of identity and delivery (class 4) and of the Stop's process group (class 5): the records.

Each function builds what a misbehaving product leaves behind across a
controller restart or a Stop, and judges it with the rule the story uses.
The rule before the class was closed took the product's word (its run
identity, its "consumed by", a receipt id, a reply's text, a group id
assumed from a pid) and passed every one of them; the harness's own looks
and the runner's receipts fail each. :mod:`calibration.loose_rules` lists
them beside the other classes.
"""

from __future__ import annotations

from typing import Any

from calibration.lifecycle_records import healthy
from calibration.loose_case import LooseCase, loose
from harness.checks.lifecycle import messages_handed_once
from harness.core.product_records import Run, Task
from harness.core.records import CheckRecord
from harness.core.runner_look import GroupLook, RunnerLook
from harness.faults.restart_rules import (
    RestartRecord,
    RestartSnapshot,
    RunState,
    receipts_once_check,
    records_once_check,
    same_run_check,
)
from harness.faults.stop import StopRecord, stop_proven

RUNNER_PID = 4100
LATE_MESSAGE = "9"


def _receipt(seq: int, tool: str = "write_file", detail: str = "") -> dict[str, Any]:
    return {"id": f"rc-{seq}", "seq": seq, "tool": tool, "target": "t", "ok": True, "detail": detail, "created_at": "t"}


def _run(receipts: list[dict[str, Any]], status: str = "running") -> Run:
    return Run.model_validate(
        {
            "id": 7,
            "task_id": 1,
            "agent_id": 1,
            "status": status,
            "identity": {"runner_instance_id": "runner-7", "pid": RUNNER_PID, "process_start_time": 1.7e9},
            "queued_at": "q",
            "started_at": "s",
            "ended_at": None if status == "running" else "e",
            "cost_cents": 0,
            "error_code": None,
            "terminal": None,
            "process_group_gone": None,
            "receipts": receipts,
        }
    )


def _process(alive: bool = True, started: str = "1700000000.25", group: int = RUNNER_PID) -> RunnerLook:
    return RunnerLook(
        source="process-table",
        looked_for=f"pid {RUNNER_PID}",
        alive=alive,
        pid=RUNNER_PID,
        started=started,
        group=group,
    )


def _moment(
    moment: str, receipts: list[dict[str, Any]], runner: RunnerLook, status: str = "running"
) -> RestartSnapshot:
    return RestartSnapshot(
        moment=moment,  # type: ignore[arg-type]
        signal="SIGTERM",
        controller_instance_id="A" if moment == "before" else "B",
        controller_pid=None,
        run=RunState.of(_run(receipts, status)),
        message=None,
        workspace={},
        runner=runner,
    )


def _restart(after: RunnerLook, before_reads: str = "", after_reads: str = "") -> tuple[RestartRecord, RestartSnapshot]:
    """A run re-adopted across the restart whose product record of its runner never changes."""
    earlier = [_receipt(0, "read_task", f"1 new message(s), ids {before_reads or '-'}"), _receipt(1)]
    later = [*earlier, _receipt(2, "read_inbox", f"ids {after_reads or '-'}"), _receipt(3)]
    record = RestartRecord(
        before=_moment("before", earlier, _process()),
        after=_moment("after", earlier, after),
        runner_kept_going=True,
        adopted=True,
    )
    return record, _moment("final", later, _process(alive=False), status="succeeded")


@loose(4, "restart.same-run", was="passed (the product's pid and start time unchanged, re-adopted, succeeded)")
def runner_replaced_under_the_same_identity() -> list[CheckRecord]:
    """The new controller started the run again in a fresh runner and kept the old pid and start time on the run:
    the process table shows nothing running at that pid after the restart."""
    record, final = _restart(after=_process(alive=False))
    return [same_run_check(record, final)]


@loose(4, "restart.receipts-once", was="passed (receipt ids unique, seqs in order)")
def message_read_again_after_the_restart() -> list[CheckRecord]:
    """Message 9, read before the restart, handed to the re-adopted runner again: new receipt ids, seqs in order."""
    record, final = _restart(after=_process(), before_reads=LATE_MESSAGE, after_reads=LATE_MESSAGE)
    return [receipts_once_check(record.before, final)]


@loose(4, "restart.records-once", was="passed (no two replies with one text, no two deliveries with one sha256)")
def delivery_restored_under_a_new_id() -> list[CheckRecord]:
    """The restart re-stores the run's one delivery under a new id, re-packed: other bytes, one deliver receipt."""
    made = _receipt(0, "deliver", "sha256 " + "a" * 64)
    task = task_record(
        runs=[_run([made], status="succeeded").model_dump()],
        deliveries=[_delivery(8, "a" * 64), _delivery(9, "b" * 64)],
    )
    return [records_once_check(task)]


def task_record(
    task_id: int = 1, assignee: int = 1, parent: int | None = None, status: str = "done", **parts: list[dict[str, Any]]
) -> Task:
    """A task as a product's API gives it, with the comments, runs, deliveries and children in ``parts``."""
    listed = {name: parts.get(name, []) for name in ("comments", "runs", "deliveries", "children")}
    return Task.model_validate(
        {
            "id": task_id,
            "title": "t",
            "status": status,
            "assignee_id": assignee,
            "assignee_name": "n",
            "parent_id": parent,
            "updated_at": "u",
            "body": "",
            **listed,
            "active_run_id": None,
            "unconsumed_user_messages": 0,
        }
    )


def _delivery(delivery_id: int, sha: str) -> dict[str, Any]:
    return {
        "id": delivery_id,
        "task_id": 1,
        "run_id": 7,
        "sha256": sha,
        "size": 1,
        "files": [],
        "created_at": "d",
        "download_url": "/",
    }


@loose(4, "lifecycle.messages-handed-once", was="passed (no wake recorded, no other run read it)")
def feedback_handed_to_its_reader_again() -> list[CheckRecord]:
    """The product hands the consumed feedback to the run that read it once more, in a later read."""
    facts = healthy()
    facts.runs[1] = facts.runs[1].model_copy(update={"received_message_ids": ["50", "50"]})
    return [messages_handed_once(facts)]


@loose(5, "stop.process-group-gone", was="passed (no process in a group numbered as the runner's pid)")
def stop_leaves_the_runners_real_group() -> list[CheckRecord]:
    """The runner ran in its launcher's group 4090; Stop killed the runner's pid and left the group's helper
    running. A look at 'group 4100' (the pid taken for a group id) found nothing and passed."""
    record = StopRecord(
        run_id=7,
        pid=RUNNER_PID,
        product_says_group_gone=True,
        runner=_process(group=4090),
        after=_process(alive=False),
        looks=[GroupLook(source="process-table", at_s=0.0, members=[4090, 4102])],
        watched_s=5.0,
    )
    return stop_proven(record)


@loose(5, "stop.process-group-gone", was="not observable (a sandboxed runner has no process group in this table)")
def stop_leaves_a_process_in_the_sandbox() -> list[CheckRecord]:
    """A sandboxed runner's container still runs a process of the agent's the moment the product says stopped."""
    working = RunnerLook(source="engine", looked_for="lease cccccccccccc", alive=True, pid=9000, started="t0")
    record = StopRecord(
        run_id=7,
        pid=None,
        product_says_group_gone=None,
        lease="c" * 64,
        runner=working,
        after=working,
        looks=[GroupLook(source="engine", at_s=0.0, members=[9000, 9014])],
        watched_s=5.0,
    )
    return stop_proven(record)


IDENTITY_CASES: tuple[LooseCase, ...] = (
    runner_replaced_under_the_same_identity,
    message_read_again_after_the_restart,
    delivery_restored_under_a_new_id,
    feedback_handed_to_its_reader_again,
)
STOP_CASES: tuple[LooseCase, ...] = (stop_leaves_the_runners_real_group, stop_leaves_a_process_in_the_sandbox)
