"""A routine fires from its webhook, once.

A person sets up a routine for the lead: each time its webhook trigger
fires, the slugify task is started for the lead. An outside system posts
one delivery to the webhook and, not getting its answer soon enough, posts
the same delivery again. A run must start on the routine's task and deliver
a ZIP the oracle passes; the one delivery must have started exactly one
task, and the routine's record and page must list that run with its
task's status.
"""

from __future__ import annotations

from harness.core.catalog import Case
from harness.routines.steps import RoutineDesk
from harness.running.journey import Journey
from oracle.tasks.slugify.contract import BUILD_TASK, BUILD_TASK_TITLE

CASE = Case(
    name="routine-run",
    needs=("routines",),
    scripted_deadline_s=120,
    description="A routine's webhook fires (and is retried with the same delivery id): one run, delivered, on record.",
)


def story(journey: Journey) -> None:
    desk = RoutineDesk(journey)
    routine = desk.create(BUILD_TASK_TITLE, BUILD_TASK)
    delivery = desk.deliver_webhook(routine)
    task = desk.wait_for_run(routine, delivery)
    journey.wait_until_finished(task, "the routine's build")
    build = journey.download_latest_delivery(task, phase="build")
    journey.grade(build, mode="base")
    desk.require_fired_once(routine, delivery)
    desk.require_record(routine.id, task)
