"""Defects in what the task page and its forms show, while the API serves the stored records right."""

from __future__ import annotations

from typing import Any

from ..models import Task
from .registry import declarer

defect = declarer("ui")


def _newest_user_message(task: Task) -> int | None:
    users = [i for i, c in enumerate(task.comments) if c.author_kind == "user"]
    return users[-1] if users else None


@defect(
    "thread-shows-twice",
    at="task-page.task",
    summary="the task page shows the newest user message twice (stored once)",
)
def newest_twice(task: Task, **_: Any) -> Task:
    at = _newest_user_message(task)
    if at is None:
        return task
    return task.model_copy(update={"comments": [*task.comments[: at + 1], *task.comments[at:]]})


@defect(
    "thread-hides-newest-message",
    at="task-page.task",
    summary="the task page's thread window ends one message early: the newest user message is stored, never shown",
)
def newest_hidden(task: Task, **_: Any) -> Task:
    at = _newest_user_message(task)
    if at is None:
        return task
    return task.model_copy(update={"comments": [c for i, c in enumerate(task.comments) if i != at]})


@defect(
    "badge-done-while-running",
    at="task-page.task",
    summary="the status badge shows Done while the stored status is in progress",
)
def badge_done(task: Task, **_: Any) -> Task:
    return task.model_copy(update={"status": "done"}) if task.status == "in_progress" else task


@defect(
    "badge-stuck-in-progress",
    at="task-page.task",
    summary="once a task has finished, its page's status badge still says in progress (the API has it right)",
)
def badge_in_progress(task: Task, **_: Any) -> Task:
    return task.model_copy(update={"status": "in_progress"}) if task.status in ("done", "in_review") else task


@defect(
    "new-task-lands-on-list",
    at="task-form.redirect",
    summary="the new-task form creates the task but sends the person back to the task list, not to its page",
)
def to_list(url: str, **_: Any) -> str:
    return "/"
