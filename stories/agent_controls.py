"""Pause an agent while it works, leave it more work, resume it; then terminate it.

A person asks the lead for the slugify tool. While it is writing, they open
the lead's page and press Pause: the run in progress settles as the product
documents (cancelled). While the lead is paused they ask, in the task, for
a --separator option too, and watch: nothing starts. They press Resume: the
lead takes the work up again on its own, and the ZIP it delivers has the
separator. Then they press Terminate: a new task for the lead is refused,
and nothing starts.
"""

from __future__ import annotations

from harness.core.catalog import Case
from harness.faults.agent_controls import leave_work_while_paused, pause_while_working, resume, terminate
from harness.running.journey import Journey
from oracle.tasks.slugify.contract import BUILD_TASK, BUILD_TASK_TITLE, REVISION_SEPARATOR, SOURCE_FILE

CASE = Case(
    name="agent-controls",
    needs=("agent-controls",),
    scripted_deadline_s=120,
    scripted_pace_s=0.3,
    description="Pause an agent mid-run (nothing starts), resume it (the work continues), terminate it (no work).",
)


def story(journey: Journey) -> None:
    task = journey.create_task(BUILD_TASK_TITLE, BUILD_TASK)
    paused = pause_while_working(journey, task, source=SOURCE_FILE)
    leave_work_while_paused(journey, task, paused, REVISION_SEPARATOR)
    resume(journey, task, paused)
    delivery = journey.download_latest_delivery(task, phase="build")
    journey.grade(delivery, mode="separator")
    terminate(journey, task, paused, title="One more tool", body=BUILD_TASK)
