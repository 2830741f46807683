"""Approve a hire the company holds for the board, and give the new agent work.

The company requires the board's approval for new agents. A hire of Morgan,
set up like the lead, is asked for: it must wait in Approvals, with no Morgan
able to work yet. The person approves it in the browser: Morgan is then the
one active agent of that name. They ask the lead to have Morgan build the
slugify tool: one child task goes to Morgan, Morgan really runs on it, and
the ZIP passes the oracle.
"""

from __future__ import annotations

from harness.core.catalog import Case
from harness.hiring.approval_steps import approve_hire, ask_for_hire
from harness.hiring.steps import Team, Work
from harness.running.journey import Journey
from oracle.tasks.slugify.contract import DELEGATE_TASK_TITLE, delegation_task

CASE = Case(
    name="hire-approval",
    needs=("hire-approval", "delegation"),
    scripted_deadline_s=120,
    description="A hire waits in Approvals; the person approves it in the browser; the new agent takes work.",
)

TEAMMATE, ROLE = "Morgan", "QA"


def story(journey: Journey) -> None:
    hire = ask_for_hire(journey, TEAMMATE, ROLE)
    morgan = approve_hire(journey, hire)
    build = Work(
        phase="first", title=DELEGATE_TASK_TITLE, body=delegation_task(TEAMMATE), oracle_task="slugify", mode="base"
    )
    Team(journey).ask_lead(morgan, build, check="first")
