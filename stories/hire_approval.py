"""Approve a hire the company holds for the board, and give the new agent work.

The company requires the board's approval for new agents. A hire of Morgan,
set up like the lead, is asked for: it must wait in Approvals, with no Morgan
able to work yet. The person approves it in the browser: Morgan is then the
one active agent of that name. They give Morgan the slugify tool to build:
Morgan itself runs it, and the ZIP passes the oracle.
"""

from __future__ import annotations

from harness.core.catalog import Case
from harness.hiring.approval_steps import approve_hire, ask_for_hire, require_worked
from harness.running.journey import Journey
from oracle.tasks.slugify.contract import BUILD_TASK, BUILD_TASK_TITLE

CASE = Case(
    name="hire-approval",
    needs=("hire-approval",),
    replay=False,  # the story judges the product's approval, not a model: the scripted agent does the work
    scripted_deadline_s=90,
    description="A hire waits in Approvals; the person approves it in the browser; the new agent takes work.",
)

TEAMMATE, ROLE = "Morgan", "QA"


def story(journey: Journey) -> None:
    hire = ask_for_hire(journey, TEAMMATE, ROLE)
    morgan = approve_hire(journey, hire)
    task = journey.create_task(BUILD_TASK_TITLE, BUILD_TASK, assignee=morgan)
    journey.wait_until_finished(task, "Morgan's first task")
    delivery = journey.download_latest_delivery(task, phase="build")
    journey.grade(delivery, mode="base")
    require_worked(journey, task, morgan)
