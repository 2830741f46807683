"""A routine in a person's vocabulary: what the routine-run story does and requires.

The person creates a routine in the browser (the task it starts, its agent,
a webhook trigger). An outside system then posts one delivery to the
webhook and, as senders do when an answer is slow, posts the same delivery
again. A run must start on the task the routine started, and the work be
delivered; one delivery must have started one task, and the routine's
record (its API and its page) must list that run with its task's status.
Each step decides one rule of :mod:`harness.routines.rules`.
"""

from __future__ import annotations

from typing import cast

from pydantic import BaseModel

from harness.core.product_records import RecordId, Routine, Task, TaskSummary
from harness.judging.observations import judge
from harness.products.base import RoutinesApi, RoutinesDriver, RoutineView
from harness.routines import rules
from harness.running.journey import Journey

SENDS = 2  # the delivery, and the sender's retry of it


class Delivery(BaseModel):
    """One webhook delivery as the outside system sent it: its id, how often, and the tasks there were before."""

    delivery_id: str
    sends: int
    tasks_before: frozenset[str]


class RoutineDesk:
    """The company's routines during one journey, and the routine's page the person keeps coming back to."""

    def __init__(self, journey: Journey) -> None:
        self.journey = journey
        self.api = cast(RoutinesApi, journey.api)
        self.view: RoutineView | None = None

    def create(self, title: str, instructions: str) -> Routine:
        """Fill the new-routine form for the lead, with a webhook trigger, and land on the routine's page."""
        driver = cast(RoutinesDriver, self.journey.driver)
        with self.journey.expecting("task-page-shown", f"creating routine {title!r} in the browser"):
            self.view = (
                driver.routines_page(self.journey.page, self.journey.instance.base_url)
                .open()
                .create(title, instructions, self.journey.lead.name)
            )
        routine = self.api.routine(self.view.routine_id)
        self.journey.evidence.note("create routine", f"routine {routine.id} {title!r} for {self.journey.lead.name}")
        self.journey.screenshot(f"routine {routine.id} created")
        return routine

    def deliver_webhook(self, routine: Routine) -> Delivery:
        """Post one delivery to the routine's webhook, then the same delivery again (the sender's retry)."""
        delivery = Delivery(
            delivery_id=f"delivery-{self.journey.fresh_nonce()}",
            sends=SENDS,
            tasks_before=frozenset(str(t.id) for t in self.journey.api.tasks()),
        )
        for _ in range(SENDS):
            self.api.deliver_webhook(routine.id, delivery.delivery_id)
        self.journey.evidence.note("webhook", f"delivery {delivery.delivery_id} sent {SENDS} times")
        return delivery

    def _started(self, routine: Routine, delivery: Delivery) -> list[TaskSummary]:
        """The tasks for the routine's agent that appeared since the delivery, oldest first."""
        new = [
            t
            for t in self.journey.api.tasks()
            if str(t.id) not in delivery.tasks_before and str(t.assignee_id) == str(routine.assignee_id)
        ]
        return sorted(new, key=lambda t: t.updated_at)

    def wait_for_run(self, routine: Routine, delivery: Delivery) -> Task:
        """A task the delivery started, once a run is on it (within the shown wait); then its page, opened."""

        def run_started() -> Task | None:
            for summary in self._started(routine, delivery):
                task = self.journey.api.task(summary.id)
                if task.runs:
                    return task
            return None

        what = f"a run on a task routine {routine.id} started"
        task: Task = self.journey.wait(run_started, what, "routine-run-started", self.journey.shown_budget())
        self.journey.evidence.note("routine run", f"task {task.id}, run {task.runs[0].id}")
        self.journey.open_task(task)
        self.journey.screenshot(f"routine task {task.id}")
        return task

    def require_fired_once(self, routine: Routine, delivery: Delivery) -> None:
        started = self._started(routine, delivery)
        kept = self.journey.evidence.snapshot("routine-tasks", [t.model_dump() for t in started])
        self.journey.require(judge(rules.fired_once, started, delivery.delivery_id, delivery.sends), "fired once", kept)

    def require_record(self, routine_id: RecordId, task: Task) -> None:
        """The routine's record lists the run, and its page shows it with the task's status now."""
        stored = self.api.routine(routine_id)
        kept = self.journey.evidence.snapshot(f"routine-{routine_id}", stored.model_dump())
        self.journey.require(judge(rules.record_lists, stored.fires, task), "routine record", kept)
        status = self.journey.api.task(task.id).status
        assert self.view is not None, "the routine was created through its page"
        with self.journey.expecting("page-shows-status", f"opening routine {routine_id}'s page"):
            shown = self.view.reload().runs()
        self.journey.require(judge(rules.page_lists, shown, task.id, status), "routine page")
        self.journey.open_task(task)  # the person ends where the work is: the task's page
