"""Defects in the product's counters and metering records."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from ..models import Comment, ModelCallReport
from .registry import declarer

defect = declarer("bookkeeping")


@defect(
    "unread-off-by-one",
    at="task.unread-count",
    summary="once a message was consumed, the unread counter counts one more than there are",
)
def one_more(counted: int, *, thread: list[Comment], **_: Any) -> int:
    consumed = any(c.consumed_by_run_id is not None for c in thread if c.author_kind == "user")
    return counted + 1 if consumed else counted


@defect(
    "model-call-admission-skipped",
    at="model-call.insert",
    summary="the controller acknowledges a forwarded model call's admission without recording it, so its"
    " completion finds no call to complete: every call the model answered goes unmetered",
)
def skips_answered_calls(insert: Callable[..., dict[str, Any]], **_: Any) -> Callable[..., dict[str, Any]]:
    def skipping(conn: sqlite3.Connection, run: sqlite3.Row, report: ModelCallReport) -> dict[str, Any]:
        return {"id": None} if report.refused is None else insert(conn, run, report)

    return skipping


@defect(
    "model-call-metered-twice",
    at="model-call.insert",
    summary="each model call's admission is recorded twice: every call the model answered is billed twice",
)
def metered_twice(insert: Callable[..., dict[str, Any]], **_: Any) -> Callable[..., dict[str, Any]]:
    """A retried bookkeeping write: a second row for each admission, each then completed apart."""

    def twice(conn: sqlite3.Connection, run: sqlite3.Row, report: ModelCallReport) -> dict[str, Any]:
        answer = insert(conn, run, report)
        if report.in_flight:
            insert(conn, run, report.model_copy(update={"event_id": f"{report.event_id}:again"}))
        return answer

    return twice
