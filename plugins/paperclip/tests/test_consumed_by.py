"""How the Paperclip driver reads "consumed by run N" from Paperclip's own run records.

The runs below are shaped like what Paperclip 2026.824.1 answered in a real
delegate-feedback attempt: the teammate's running run read the late comment
from the issue's thread, and Paperclip, which defers every comment on a
running issue to a new run boundary, woke a second run with it afterwards.
"""

from __future__ import annotations

from typing import Any

from everyday_paperclip.api import PaperclipApi, _receivers

COMMENT = "4e92caa6-97a7-4887-b7f1-5677e96e4b26"


def _run(run_id: str, started: str, woke_with: list[str], read: list[tuple[str, str, str]]) -> dict[str, Any]:
    """A run as ``GET /api/heartbeat-runs/{id}`` answers it, with the read receipts of its stored log."""
    receipts = [
        {"id": f"{run_id}-{n}", "seq": n, "tool": tool, "target": "", "ok": True, "detail": detail, "created_at": at}
        for n, (tool, detail, at) in enumerate(read)
    ]
    return {
        "id": run_id,
        "createdAt": started,
        "startedAt": started,
        "contextSnapshot": {"paperclipWake": {"commentIds": woke_with}},
        "receipts": receipts,
    }


def _runs() -> list[dict[str, Any]]:
    working = _run(
        "run-1", "2026-11-30T17:30:32.525Z", [], [("read_inbox", f"ids {COMMENT}", "2026-11-30T17:30:54+0000")]
    )
    follow_up = _run(
        "run-2",
        "2026-11-30T17:31:21.106Z",
        [COMMENT],
        [("read_task", "0 new message(s), ids -", "2026-11-30T17:31:22+0000")],
    )
    return [follow_up, working]  # the order Paperclip lists them in does not matter


def _comment(receivers: dict[str, list[tuple[str, bool]]]) -> Any:
    raw = {"id": COMMENT, "authorType": "user", "body": "One more requirement", "createdAt": "2026-11-30T17:30:44Z"}
    return PaperclipApi._comment(raw, "child", receivers)


def test_the_run_that_read_it_first_consumed_it_and_the_later_wake_is_a_second_hand_over() -> None:
    comment = _comment(_receivers(_runs()))
    assert comment.consumed_by_run_id == "run-1"
    assert comment.woke_run_ids == ["run-2"]


def test_a_comment_no_running_run_read_is_consumed_by_the_run_woken_with_it() -> None:
    runs = _runs()
    runs[1]["receipts"] = []  # the working run never read its thread again
    comment = _comment(_receivers(runs))
    assert comment.consumed_by_run_id == "run-2" and comment.woke_run_ids == ["run-2"]


def test_a_comment_nobody_received_is_unconsumed() -> None:
    assert _comment(_receivers([])).consumed_by_run_id is None
