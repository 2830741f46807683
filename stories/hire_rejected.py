"""Reject a hire the company holds for the board: nothing is created.

The same company and hire request as ``hire_approval``; the person rejects
it in Approvals. Afterwards the approval is recorded rejected, no Morgan is
left that could ever work, and nobody else joined the team.
"""

from __future__ import annotations

from harness.core.catalog import Case
from harness.hiring.approval_steps import ask_for_hire, reject_hire
from harness.running.journey import Journey
from stories.hire_approval import ROLE, TEAMMATE

CASE = Case(
    name="hire-rejected",
    needs=("hire-approval",),
    scripted_deadline_s=60,
    description="A hire waits in Approvals; the person rejects it in the browser; no agent is created.",
)


def story(journey: Journey) -> None:
    hire = ask_for_hire(journey, TEAMMATE, ROLE)
    reject_hire(journey, hire)
