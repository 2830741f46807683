"""The fault checks decided on synthetic driver records: each requirement fails on the record that breaks it."""

from __future__ import annotations

from typing import Any

import pytest

from harness.core.product_records import Agent, Receipt, Run, Task
from harness.faults.drain_rules import DrainRecord, drain_checks, read_before_signal
from harness.faults.late_feedback import cites_delivery, delegation_checks
from harness.faults.restart_rules import (
    MessageState,
    ReceiptDigest,
    RestartRecord,
    RestartSnapshot,
    RunState,
    restart_checks,
)
from harness.faults.stop import ShortReplyView, StopRecord, changed_paths, process_group_gone, stop_checks

SHA_EARLY, SHA_FINAL = "e" * 64, "f" * 64
LATE = "One more requirement: --max-length."


def receipt(seq: int, tool: str = "write_file", target: str = "slugify.py") -> dict[str, Any]:
    return {
        "id": f"rc-{seq}",
        "seq": seq,
        "tool": tool,
        "target": target,
        "ok": True,
        "detail": "",
        "created_at": f"t{seq}",
    }


def run(
    run_id: int,
    task_id: int,
    agent_id: int = 1,
    status: str = "succeeded",
    receipts: int = 0,
    pid: int = 500,
    **extra: Any,
) -> dict[str, Any]:
    return {
        "id": run_id,
        "task_id": task_id,
        "agent_id": agent_id,
        "status": status,
        "identity": {"runner_instance_id": f"r{run_id}", "pid": pid, "process_start_time": 1.0},
        "queued_at": "q",
        "started_at": "s",
        "ended_at": None if status == "running" else "e",
        "cost_cents": 0,
        "error_code": extra.get("error_code"),
        "terminal": None,
        "process_group_gone": extra.get("gone"),
        "receipts": [receipt(n) for n in range(receipts)],
    }


def comment(
    comment_id: int, task_id: int, body: str, kind: str = "user", run_id: int | None = None, consumed: int | None = None
) -> dict[str, Any]:
    return {
        "id": comment_id,
        "task_id": task_id,
        "author_kind": kind,
        "agent_id": None,
        "author_name": "x",
        "run_id": run_id,
        "body": body,
        "created_at": "c",
        "consumed_by_run_id": consumed,
        "consumed_at": None,
    }


def delivery(delivery_id: int, task_id: int, sha: str) -> dict[str, Any]:
    return {
        "id": delivery_id,
        "task_id": task_id,
        "run_id": 1,
        "sha256": sha,
        "size": 1,
        "files": [],
        "created_at": "d",
        "download_url": "/",
    }


def task(task_id: int, assignee: int, parent: int | None = None, **parts: Any) -> Task:
    return Task.model_validate(
        {
            "id": task_id,
            "title": "t",
            "status": parts.get("status", "done"),
            "assignee_id": assignee,
            "assignee_name": "n",
            "parent_id": parent,
            "updated_at": "u",
            "body": "",
            "comments": parts.get("comments", []),
            "runs": parts.get("runs", []),
            "deliveries": parts.get("deliveries", []),
            "children": parts.get("children", []),
            "active_run_id": None,
            "unconsumed_user_messages": 0,
        }
    )


def failed(checks: list) -> list[str]:  # type: ignore[type-arg]
    return [check.id for check in checks if not check.passed]


# ---- delegation ------------------------------------------------------------------------------

LEAD = Agent(id=1, name="Avery", role="lead", reports_to=None, adapter="scripted", model="default")
MATE = Agent(id=2, name="Blake", role="engineer", reports_to=1, adapter="scripted", model="default")


def delegation(
    reply: str = f"Final delivery #9, sha256 {SHA_FINAL}.", parent_runs: list[dict[str, Any]] | None = None
) -> tuple[Task, list[Task]]:
    child = task(
        2,
        assignee=2,
        parent=1,
        runs=[run(2, 2, agent_id=2)],
        comments=[comment(5, 2, LATE, consumed=2)],
        deliveries=[delivery(8, 2, SHA_EARLY), delivery(9, 2, SHA_FINAL)],
    )
    parent = task(
        1, assignee=1, runs=parent_runs or [run(1, 1)], comments=[comment(6, 1, reply, kind="agent", run_id=1)]
    )
    return parent, [child]


def test_a_true_delegation_passes() -> None:
    parent, children = delegation()
    assert failed(delegation_checks(parent, children, LEAD, MATE, LATE)) == []


def test_a_reply_citing_an_earlier_delivery_fails() -> None:
    parent, children = delegation(reply=f"Done: sha256 {SHA_EARLY}")
    assert failed(delegation_checks(parent, children, LEAD, MATE, LATE)) == ["delegate.reply-cites-final-delivery"]
    assert cites_delivery("see delivery #9", 9, SHA_FINAL) and not cites_delivery("see delivery #19", 9, SHA_FINAL)


def test_the_teammate_running_on_the_parent_fails() -> None:
    parent, children = delegation(parent_runs=[run(1, 1), run(3, 1, agent_id=2)])
    assert failed(delegation_checks(parent, children, LEAD, MATE, LATE)) == ["delegate.teammate-never-on-parent"]


def test_feedback_read_by_a_failed_child_run_or_sent_to_the_parent_fails() -> None:
    parent, [child] = delegation()
    crashed = child.model_copy(update={"runs": [Run.model_validate(run(2, 2, agent_id=2, status="failed"))]})
    assert failed(delegation_checks(parent, [crashed], LEAD, MATE, LATE)) == ["delegate.feedback-in-child"]
    two = [child, child.model_copy(update={"id": 3})]
    assert "delegate.one-child-for-teammate" in failed(delegation_checks(parent, two, LEAD, MATE, LATE))
    stranger = MATE.model_copy(update={"reports_to": None})
    assert failed(delegation_checks(parent, [child], LEAD, stranger, LATE)) == ["delegate.teammate-reports-to-lead"]


# ---- a graceful shutdown the product drains -------------------------------------------------------

SIGNALLED = "2026-01-01T12:00:10Z"


def drained_run(status: str = "failed", error: str | None = "interrupted_by_shutdown") -> dict[str, Any]:
    return run(1, 1, status=status, receipts=2, error_code=error) | {"queued_at": "2026-01-01T12:00:00Z"}


def retry(run_id: int = 2, reads_late: bool = True) -> dict[str, Any]:
    read = receipt(0, tool="read_task", target="task 1") | {"detail": "new messages: ids 4" if reads_late else ""}
    return run(run_id, 1, receipts=0, pid=600 + run_id) | {"queued_at": "2026-01-01T12:00:11Z", "receipts": [read]}


def drain(runner_gone: bool = True) -> DrainRecord:
    before = snapshot("before", 2)
    before.message = MessageState(id=4, consumed_by_run_id=None)
    return DrainRecord(
        before=before,
        after=snapshot("after", 2, status="failed", instance="B"),
        signalled_at=SIGNALLED,  # type: ignore[arg-type]
        runner_gone=runner_gone,
    )


def drained_task(
    runs: list[dict[str, Any]], deliveries: list[dict[str, Any]] | None = None, woke: tuple[int, ...] = ()
) -> Task:
    retried = delivery(9, 1, SHA_FINAL) | {"run_id": 2, "created_at": "2026-01-01T12:01:00Z"}
    late = comment(4, 1, LATE) | {"woke_run_ids": list(woke)}
    return task(1, assignee=1, runs=runs, comments=[late], deliveries=deliveries or [retried])


def test_a_drain_that_interrupts_the_run_and_retries_the_work_passes() -> None:
    assert failed(drain_checks(drain(), drained_task([drained_run(), retry()]))) == []


def test_a_drained_run_recorded_succeeded_and_never_retried_is_named() -> None:
    """Paperclip 2026.824.1: the process adapter's child killed by the drain has a null exit code, read as 0."""
    checks = drain_checks(drain(), drained_task([drained_run(status="succeeded", error=None)], deliveries=[]))
    assert failed(checks) == [
        "drain.run-interrupted",
        "drain.work-retried",
        "drain.message-received",
        "drain.delivered-once",
    ]


def test_a_retry_that_never_read_the_message_a_runner_left_alive_or_a_second_delivery_is_named() -> None:
    assert failed(drain_checks(drain(), drained_task([drained_run(), retry(reads_late=False)]))) == [
        "drain.message-received"
    ]
    assert failed(drain_checks(drain(runner_gone=False), drained_task([drained_run(), retry()]))) == [
        "drain.run-interrupted"
    ]
    late = delivery(8, 1, SHA_EARLY) | {"run_id": 1, "created_at": "2026-01-01T12:00:30Z"}
    retried = delivery(9, 1, SHA_FINAL) | {"run_id": 2, "created_at": "2026-01-01T12:01:00Z"}
    twice = drained_task([drained_run(), retry()], deliveries=[late, retried])
    assert failed(drain_checks(drain(), twice)) == ["drain.delivered-once"]
    again = delivery(10, 1, SHA_FINAL) | {"run_id": 3, "created_at": "2026-01-01T12:02:00Z"}
    two_retries = drained_task([drained_run(), retry(), retry(3)], deliveries=[retried, again])
    assert failed(drain_checks(drain(), two_retries)) == ["drain.delivered-once"]


def test_the_late_message_handed_to_a_run_of_its_own_which_reads_it_and_revises_the_retried_work_passes() -> None:
    """Paperclip 2026.824.1: a comment stored mid-run gets a run of its own once the retry ends (its new run
    boundary); that run, woken with it and reading it, revises what the retry delivered. Woken but never finished,
    it is lost."""
    retried = delivery(9, 1, SHA_EARLY) | {"run_id": 2, "created_at": "2026-01-01T12:01:00Z"}
    revised = delivery(10, 1, SHA_FINAL) | {"run_id": 3, "created_at": "2026-01-01T12:02:00Z"}
    runs = [drained_run(), retry(reads_late=False), retry(3)]
    assert failed(drain_checks(drain(), drained_task(runs, [retried, revised], woke=(3,)))) == []
    crashed = [drained_run(), retry(reads_late=False), retry(3) | {"status": "failed"}]
    assert failed(drain_checks(drain(), drained_task(crashed, [retried], woke=(3,)))) == ["drain.message-received"]
    twice = [retried, revised, revised | {"id": 11}]
    assert failed(drain_checks(drain(), drained_task(runs, twice, woke=(3,)))) == ["drain.delivered-once"]


def test_a_drained_run_that_read_the_late_message_before_the_signal_misses_the_premise() -> None:
    record = drain()
    assert not read_before_signal(record.after, "4")
    read = RunState.of(Run.model_validate(drained_run() | {"receipts": [retry()["receipts"][0]]}))
    assert read_before_signal(record.after.model_copy(update={"run": read}), "4")


def test_a_wake_record_without_the_runners_receipt_of_the_message_is_not_its_receipt() -> None:
    """The product says it woke run 3 with the late message; run 3's own reads never name it. The rule before this
    took the wake as the hand-over and passed; the message's receipt is the runner's word, so it fails."""
    retried = delivery(9, 1, SHA_EARLY) | {"run_id": 2, "created_at": "2026-01-01T12:01:00Z"}
    revised = delivery(10, 1, SHA_FINAL) | {"run_id": 3, "created_at": "2026-01-01T12:02:00Z"}
    runs = [drained_run(), retry(reads_late=False), retry(3, reads_late=False)]
    checks = drain_checks(drain(), drained_task(runs, [retried, revised], woke=(3,)))
    assert failed(checks) == ["drain.message-received"]
    received = next(check for check in checks if check.id == "drain.message-received")
    assert "woke run(s) [3] with it, which never read it" in received.detail


# ---- controller restart --------------------------------------------------------------------------


def snapshot(
    moment: str, receipts: int, status: str = "running", instance: str = "A", pid: int = 500
) -> RestartSnapshot:
    state = RunState.of(Run.model_validate(run(1, 1, status=status, receipts=receipts, pid=pid)))
    return RestartSnapshot(
        moment=moment,
        signal="SIGKILL",
        controller_instance_id=instance,
        controller_pid=1,  # type: ignore[arg-type]
        run=state,
        message=None,
        workspace={"slugify.py": "h"},
    )


def restart(after_pid: int = 500, adopted: bool = True) -> RestartRecord:
    return RestartRecord(
        before=snapshot("before", 3),
        after=snapshot("after", 3, instance="B", pid=after_pid),
        runner_kept_going=True,
        adopted=adopted,
    )


def finished_task() -> Task:
    return task(1, assignee=1, runs=[run(1, 1, receipts=6)], comments=[comment(4, 1, LATE, consumed=1)])


def test_a_clean_restart_passes_and_a_missing_message_is_named() -> None:
    record = restart()
    record.before.message = record.after.message = None
    final = snapshot("final", 6, status="succeeded", instance="B")
    assert failed(restart_checks(record, final, finished_task())) == ["restart.message-survived"]


def test_the_late_message_must_be_received_by_the_runner_after_the_restart() -> None:
    record = restart()
    record.before.message = MessageState(id=4, consumed_by_run_id=None)  # queued when the controller went down
    final = snapshot("final", 6, status="succeeded", instance="B")
    assert failed(restart_checks(record, final, finished_task())) == ["restart.message-received"]
    read = Receipt.model_validate(receipt(6, tool="read_inbox", target="1 message(s)") | {"detail": "ids 4"})
    final.run.receipts.append(ReceiptDigest.of(read))
    assert failed(restart_checks(record, final, finished_task())) == []


def test_a_new_runner_or_a_rewritten_receipt_fails() -> None:
    final = snapshot("final", 6, status="succeeded", instance="B")
    assert "restart.same-run" in failed(restart_checks(restart(after_pid=501), final, finished_task()))
    assert "restart.same-run" in failed(restart_checks(restart(adopted=False), final, finished_task()))
    rewritten = final.model_copy(deep=True)
    rewritten.run.receipts[1] = (
        RunState.of(Run.model_validate(run(1, 1, receipts=6))).receipts[1].model_copy(update={"sha256": "0" * 64})
    )
    assert "restart.receipt-prefix" in failed(restart_checks(restart(), rewritten, finished_task()))
    doubled = final.model_copy(deep=True)
    doubled.run.receipts.append(doubled.run.receipts[0])
    assert "restart.receipts-once" in failed(restart_checks(restart(), doubled, finished_task()))


def test_receipt_digest_covers_every_field() -> None:
    one = Receipt.model_validate(receipt(0))
    assert (
        RunState.of(Run.model_validate(run(1, 1, receipts=1))).receipts[0].sha256
        != RunState.of(
            Run.model_validate(run(1, 1, receipts=1) | {"receipts": [one.model_dump() | {"detail": "changed"}]})
        )
        .receipts[0]
        .sha256
    )


# ---- Stop ----------------------------------------------------------------------------------------

REQUEST = "Change of plan ... nonce N123456"


def stopped_task(reply: str = "Your short reply: N123456") -> Task:
    return task(
        1,
        assignee=1,
        runs=[run(1, 1, status="cancelled", error_code="stopped_by_user", gone=True), run(2, 1)],
        comments=[comment(3, 1, REQUEST, consumed=2), comment(4, 1, reply, kind="agent", run_id=2)],
    )


def test_a_clean_stop_passes_and_a_late_write_is_named() -> None:
    record = StopRecord(run_id=1, pid=500, product_says_group_gone=True, harness_saw_group_gone=True)
    view = ShortReplyView(request_copies=1, latest_reply="Your short reply: N123456", status="done")
    before = {"slugify.py": "a"}
    assert failed(stop_checks(record, stopped_task(), REQUEST, "N123456", view, before, before)) == []
    after = {"slugify.py": "a", "progress.log": "b"}
    assert failed(stop_checks(record, stopped_task(), REQUEST, "N123456", view, before, after)) == [
        "stop.workspace-unchanged"
    ]
    assert changed_paths(before, after) == ["progress.log"]


def test_a_task_left_in_review_is_finished_only_where_the_product_hands_work_over_for_review() -> None:
    record = StopRecord(run_id=1, pid=500, product_says_group_gone=True, harness_saw_group_gone=True)
    reviewed = ShortReplyView(request_copies=1, latest_reply="Your short reply: N123456", status="in_review")
    assert failed(stop_checks(record, stopped_task(), REQUEST, "N123456", reviewed, {}, {})) == [
        "stop.no-earlier-run-active"
    ]
    handed_over = reviewed.model_copy(update={"done_statuses": ("in_review",)})
    assert failed(stop_checks(record, stopped_task(), REQUEST, "N123456", handed_over, {}, {})) == []


def test_a_duplicate_request_a_missing_nonce_or_a_surviving_group_fails() -> None:
    record = StopRecord(run_id=1, pid=500, product_says_group_gone=True, harness_saw_group_gone=False)
    view = ShortReplyView(request_copies=2, latest_reply="done", status="done")
    got = failed(stop_checks(record, stopped_task(reply="done"), REQUEST, "N123456", view, {}, {}))
    assert got == ["stop.process-group-gone", "stop.request-stored-once", "stop.reply-has-nonce"]


def test_a_run_the_product_starts_on_its_own_after_stop_is_named() -> None:
    record = StopRecord(run_id=1, pid=500, product_says_group_gone=True, harness_saw_group_gone=True)
    view = ShortReplyView(request_copies=1, latest_reply="Your short reply: N123456", status="done")
    rewoken = task(
        1,
        assignee=1,
        runs=[run(1, 1, status="cancelled", error_code="stopped_by_user", gone=True), run(5, 1), run(2, 1)],
        comments=[
            comment(3, 1, REQUEST, consumed=2),
            comment(4, 1, "Your short reply: N123456", kind="agent", run_id=2),
        ],
    )
    assert failed(stop_checks(record, rewoken, REQUEST, "N123456", view, {}, {})) == ["stop.nothing-ran-after-stop"]


def test_a_run_queued_by_stop_itself_is_uninvited_even_when_it_answers() -> None:
    """A run the product started on its own after Stop reads the request mid-way and writes the last reply."""
    record = StopRecord(run_id=1, pid=500, product_says_group_gone=True, harness_saw_group_gone=True)
    view = ShortReplyView(request_copies=1, latest_reply="Your short reply: N123456", status="done")

    def answered_by(queued_at: str) -> Task:
        request = {**comment(3, 1, REQUEST, consumed=2), "created_at": "2026-11-30T10:00:05.000000Z"}
        return task(
            1,
            assignee=1,
            runs=[
                run(1, 1, status="cancelled", error_code="stopped_by_user", gone=True),
                {**run(2, 1), "queued_at": queued_at},
            ],
            comments=[request, comment(4, 1, "Your short reply: N123456", kind="agent", run_id=2)],
        )

    asked_for = answered_by("2026-11-30T10:00:05.200000Z")
    assert failed(stop_checks(record, asked_for, REQUEST, "N123456", view, {}, {})) == []
    on_its_own = answered_by("2026-11-30T10:00:01.000000Z")
    assert failed(stop_checks(record, on_its_own, REQUEST, "N123456", view, {}, {})) == ["stop.nothing-ran-after-stop"]


def test_identities_all_missing_are_unknown_not_the_same_run() -> None:
    record = restart()
    for state in (record.before.run, record.after.run):
        state.runner_instance_id = state.pid = state.process_start_time = None  # type: ignore[assignment]
    final = snapshot("final", 6, status="succeeded", instance="B")
    final.run.runner_instance_id = final.run.pid = final.run.process_start_time = None  # type: ignore[assignment]
    [same] = [c for c in restart_checks(record, final, finished_task()) if c.id == "restart.same-run"]
    assert not same.passed and "identity UNKNOWN" in same.detail


def test_the_same_reply_posted_by_a_second_run_is_recorded_twice() -> None:
    record = restart()
    record.before.message = record.after.message = None
    final = snapshot("final", 6, status="succeeded", instance="B")
    replies = [comment(n, 1, "Delivered.", kind="agent", run_id=n - 4) for n in (5, 6)]
    twice = task(1, assignee=1, runs=[run(1, 1, receipts=6)], comments=[comment(4, 1, LATE, consumed=1), *replies])
    assert "restart.records-once" in failed(restart_checks(record, final, twice))


@pytest.mark.parametrize(
    ("pid", "product_says", "harness_saw", "passed"),
    [
        (500, True, True, True),
        (500, None, True, True),  # a product that does not report it is judged on the harness's own look
        (500, None, False, False),
        (500, False, True, False),  # the product's own word that it is not gone
        (500, True, False, False),  # the product's word against the process table
        (None, None, False, False),  # no pid: no group was looked for, which is not a group gone
    ],
)
def test_process_group_gone_is_the_harness_look_and_the_product_word_where_it_has_one(
    pid: int | None, product_says: bool | None, harness_saw: bool, passed: bool
) -> None:
    record = StopRecord(run_id=1, pid=pid, product_says_group_gone=product_says, harness_saw_group_gone=harness_saw)
    check = process_group_gone(record)
    assert check.passed is passed and check.id == "stop.process-group-gone"
