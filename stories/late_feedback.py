"""Late feedback to the agent at work.

A person hands the agent the slugify task and, once it is writing the code,
adds one more requirement. They send it as soon as the product lets them:
into the running work where the product takes a message during a run, or as
the follow-up that continues the agent's session once its run has ended
(vibe-kanban's panel offers Send again only then). The final ZIP must honour
the requirement, and the message must be stored once and read by a run that
succeeded.
"""

from __future__ import annotations

from harness.core.catalog import Case
from harness.faults.late_feedback import note_arrival
from harness.running.journey import Journey
from oracle.tasks.slugify.contract import BUILD_TASK, BUILD_TASK_TITLE, LATE_REQUIREMENT_MAX_LENGTH, SOURCE_FILE

CASE = Case(
    name="late-feedback",
    scripted_deadline_s=120,
    scripted_pace_s=0.3,
    description="While the agent writes the code the user adds a requirement; the final ZIP honours it.",
)


def story(journey: Journey) -> None:
    task = journey.create_task(BUILD_TASK_TITLE, BUILD_TASK)
    working = journey.wait_until_source_saved(task, SOURCE_FILE)
    feedback = journey.send_message(LATE_REQUIREMENT_MAX_LENGTH)
    note_arrival(journey, working, feedback)
    journey.wait_until_finished(task, "the agent to act on the feedback")
    final = journey.download_latest_delivery(task, phase="final")
    journey.grade(final, mode="max-length")
