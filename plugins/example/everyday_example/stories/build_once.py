"""Build once: a person hands the lead the slugify task, downloads what it delivered and has it graded.

The smallest story: a ``CASE`` saying what it needs and its bounds, and a
journey in the person's words (no selectors, sleeps or JSON).
"""

from harness.core.catalog import Case
from harness.running.journey import Journey
from oracle.tasks.slugify.contract import BUILD_TASK, BUILD_TASK_TITLE

CASE = Case(
    name="build-once",
    needs=(),
    replay=False,
    scripted_deadline_s=120,
    description="Hand the lead the slugify task, download the ZIP, grade it.",
)


def story(journey: Journey) -> None:
    task = journey.create_task(BUILD_TASK_TITLE, BUILD_TASK)
    journey.wait_until_finished(task, "the build")
    delivery = journey.download_latest_delivery(task, phase="build")
    journey.grade(delivery, mode="base")
