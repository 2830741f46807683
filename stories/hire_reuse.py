"""Hire a teammate, then use that same teammate twice.

The company has the document service installed, with an encrypted
connection the lead may use. In the browser a person hires Morgan through
the product's hire form: role QA, reporting to the lead, on the lead's
runner, with the lead's connections. Exactly one Morgan must exist, set up
as asked. They then ask the lead to have Morgan build the slugify tool:
one child task goes to Morgan, Morgan really runs on it, and the ZIP passes
the oracle. Then they ask the lead for a different piece of work for Morgan,
a test suite for that tool: it goes to the same agent, nobody is hired
again, and the ZIP passes the slugify-tests oracle task.
"""

from __future__ import annotations

from harness.core.catalog import REPLAY_DEADLINE_S, Case
from harness.decisions.service import install_document_service
from harness.hiring.steps import Team, Work
from harness.running.journey import Journey
from oracle.tasks.slugify.contract import DELEGATE_TASK_TITLE, delegation_task
from oracle.tasks.slugify_tests.contract import QA_DELEGATE_TASK_TITLE, qa_delegation_task

CASE = Case.delegation(
    name="hire-reuse",
    needs=("hiring", "services", "delegation"),
    scripted_deadline_s=150,
    # Four CLI runs in two delegations (a lead and Morgan each time).
    replay_deadline_s=2 * REPLAY_DEADLINE_S,
    description="Hire Morgan (QA) through the hire form like the lead; Morgan delivers the tool, then its test suite.",
)

TEAMMATE, ROLE = "Morgan", "QA"


def story(journey: Journey) -> None:
    install_document_service(journey)
    team = Team(journey)
    morgan = team.hire_through_form(TEAMMATE, ROLE)
    build = Work(
        phase="first", title=DELEGATE_TASK_TITLE, body=delegation_task(TEAMMATE), oracle_task="slugify", mode="base"
    )
    team.ask_lead(morgan, build, check="first")
    suite = Work(
        phase="second",
        title=QA_DELEGATE_TASK_TITLE,
        body=qa_delegation_task(TEAMMATE),
        oracle_task="slugify-tests",
        mode="full",
    )
    team.ask_lead(morgan, suite, check="again")
