"""The fake product's pages: what a person would see and press, read from and done on the world directly.

They take the browser page a journey passes and ignore it: the fake has no
web UI, so what a page "shows" is what the records hold, and a check that
compares the page with the records finds them equal unless a defect makes the
records themselves wrong.
"""

from __future__ import annotations

from collections.abc import Mapping

from harness.core.product_records import Comment, RecordId
from harness.core.waiting import WaitTimeout
from harness.products.fake.world import FakeWorld

STEPS_PER_WAIT = 50
"""How many moves of the fake agent a wait on a page gives the world before it gives up (no clock is involved)."""


class FakeTaskList:
    def __init__(self, world: FakeWorld) -> None:
        self.world = world

    def open(self) -> FakeTaskList:
        return self

    def create_task(self, title: str, body: str, assignee: str | None = None) -> FakeTaskPage:
        return FakeTaskPage(self.world, self.world.create_task(title, body, assignee).id)


class FakeTaskPage:
    shows = ("title", "body")

    def __init__(self, world: FakeWorld, task_id: RecordId) -> None:
        self.world = world
        self.task_id = task_id

    def open(self) -> FakeTaskPage:
        return self

    def reload(self) -> FakeTaskPage:
        return self

    def open_child(self, index: int = 0) -> FakeTaskPage:
        raise LookupError("the fake product's tasks have no children")

    def status(self) -> str:
        return self.world.task(self.task_id).status

    def wait_until_status(self, status: str, timeout: float = 0) -> None:
        for _ in range(STEPS_PER_WAIT):
            if self.status() == status:
                return
            self.world.step()
        raise WaitTimeout(f"task {self.task_id} to show {status} (it shows {self.status()})")

    def shown_fields(self) -> Mapping[str, str | None]:
        task = self.world.task(self.task_id)
        return {"title": task.title, "body": task.body}

    def user_messages_with(self, text: str) -> list[Comment]:
        return [c for c in self.world.task(self.task_id).user_messages() if c.body == text]

    def latest_reply(self) -> Comment | None:
        replies = self.world.task(self.task_id).agent_replies()
        return replies[-1] if replies else None

    def send_message(self, text: str, timeout: float = 0) -> Comment:
        return self.world.send_message(self.task_id, text)

    def submit_message(self, text: str) -> None:
        self.world.send_message(self.task_id, text)

    def scroll_latest_reply_into_view(self) -> None:
        """Nothing to scroll: the fake shows every record at once."""

    def click_stop(self, run_id: RecordId, timeout: float = 0) -> bool:
        return self.world.stop(run_id)

    def wait_for_stop_result(self, run_id: RecordId, timeout: float = 0) -> None:
        """The fake stops a run within the click."""

    def download_delivery_id(self, delivery_id: RecordId, timeout: float = 0) -> bytes:
        return self.world.delivery_bytes(delivery_id)
