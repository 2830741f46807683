"""The server is stopped gracefully (SIGTERM) under a running job and started again; the product drains.

A person asks for the slugify tool and, while the agent is writing it, adds
one more requirement. Right after the message is stored the server gets a
plain SIGTERM, with no restart request: a product that promises a graceful
drain stops the running job, records it interrupted and retries the work
once it is back. The retry must finish the job and read the message, and
nothing may be delivered twice.
"""

from __future__ import annotations

from harness.core.catalog import Case
from harness.faults.drain import drain_controller, require_drained
from harness.running.journey import Journey
from oracle.tasks.slugify.contract import BUILD_TASK, BUILD_TASK_TITLE, LATE_REQUIREMENT_MAX_LENGTH, SOURCE_FILE

CASE = Case(
    name="recover-controller-drain",
    needs=("graceful-drain",),
    scripted_deadline_s=180,
    scripted_pace_s=0.3,
    description="The controller gets a plain SIGTERM mid-run (a drain): the run ends interrupted, a retry finishes"
    " the work and reads the late message, nothing is delivered twice.",
)


def story(journey: Journey) -> None:
    task = journey.create_task(BUILD_TASK_TITLE, BUILD_TASK)
    working = journey.wait_until_source_saved(task, SOURCE_FILE)
    late = journey.submit_message(LATE_REQUIREMENT_MAX_LENGTH)
    drain = drain_controller(journey, working, once_stored=late)

    journey.wait_until_finished(task, "the retried build after the drain")
    final = journey.download_latest_delivery(task, phase="final")
    journey.grade(final, mode="max-length")
    require_drained(journey, task, drain)
