"""Late feedback to a delegated worker.

A person hires a teammate who reports to the lead, asks the lead to have
that teammate build the slugify tool, follows the lead's child task in the
browser and, while the teammate is already writing the code, adds one more
requirement in the child's composer. The teammate's final ZIP must honour
it, and the lead may only report back once that final delivery exists.
"""

from __future__ import annotations

from harness.core.catalog import Case
from harness.faults.late_feedback import require_arrived_while_active, require_delegation
from harness.running.journey import Journey
from oracle.tasks.slugify.contract import DELEGATE_TASK_TITLE, LATE_REQUIREMENT_MAX_LENGTH, SOURCE_FILE, delegation_task

CASE = Case.delegation(
    name="delegate-feedback",
    needs=("delegation",),
    scripted_deadline_s=120,
    scripted_pace_s=0.3,
    description="A teammate builds through a child task; late feedback in the child's composer is consumed once.",
)


def story(journey: Journey) -> None:
    teammate = journey.hire_teammate("Blake", "engineer")
    parent = journey.create_task(DELEGATE_TASK_TITLE, delegation_task(teammate.name))

    child = journey.open_child_task(parent)
    working = journey.wait_until_source_saved(child, SOURCE_FILE)
    feedback = journey.send_message(LATE_REQUIREMENT_MAX_LENGTH)
    require_arrived_while_active(journey, working, feedback)

    journey.wait_until_finished(child, "the teammate")
    delivery = journey.download_latest_delivery(child, phase="child")
    journey.grade(delivery, mode="max-length")

    journey.open_task(parent)
    journey.wait_until_finished(parent, "the lead")
    require_delegation(journey, parent, teammate, feedback=LATE_REQUIREMENT_MAX_LENGTH)
