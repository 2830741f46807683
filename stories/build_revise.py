"""Build a small project, then revise it.

A person hands the lead agent the slugify task, waits for it, downloads the
ZIP and has it graded independently; then asks for a revision through the
composer, downloads and grades the second ZIP, and makes sure the first
delivery still downloads with exactly its original bytes.
"""

from __future__ import annotations

from harness.core.catalog import Case
from harness.running.journey import Journey
from oracle.tasks.slugify.contract import BUILD_TASK, BUILD_TASK_TITLE, REVISION_SEPARATOR

CASE = Case(
    name="build-revise",
    scripted_deadline_s=120,
    description="Build a tool, grade the ZIP, ask for a revision, grade the second ZIP.",
)


def story(journey: Journey) -> None:
    task = journey.create_task(BUILD_TASK_TITLE, BUILD_TASK)
    journey.wait_until_finished(task, "the build")
    first = journey.download_latest_delivery(task, phase="build")
    journey.grade(first, mode="base")

    journey.send_message(REVISION_SEPARATOR)
    journey.wait_until_finished(task, "the revision")
    second = journey.download_latest_delivery(task, phase="revision")
    journey.grade(second, mode="separator")

    journey.require_different(first, second)
    journey.download_again(first, task)
