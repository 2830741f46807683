"""Hiring a teammate and giving them work, in a person's vocabulary: what the hire-reuse story does and requires.

The hire goes through the product's hire form in the browser, filled the
way a person copies the lead's settings: reporting to the lead, on the
lead's runner, with the lead's connections ticked. What the product stored
is then read back and judged by :mod:`harness.hiring.rules`; a hire rule
that fails ends the story under its own check id (work given to a wrong
hire would only repeat the miss). Each piece of work is asked of the lead,
who must hand it to the hire through one child task; the hire's delivery is
downloaded from the child's page and graded by the oracle task named.
"""

from __future__ import annotations

from typing import Literal, cast

from pydantic import BaseModel

from harness.core.product_records import Agent, Hire, Task
from harness.decisions.requests import services_api
from harness.hiring import rules
from harness.judging.observations import judge
from harness.products.base import HiringDriver
from harness.running.journey import Journey


class Work(BaseModel):
    """One piece of work for the hire: what the lead is asked, and how the oracle grades the hire's delivery."""

    phase: str  # names the delivery and its oracle check (``oracle.<phase>``)
    title: str
    body: str
    oracle_task: str
    mode: str


class Team:
    """The company's team during one journey: whom a person hired, and the team as it was right after."""

    def __init__(self, journey: Journey) -> None:
        self.journey = journey
        self.after_hire: list[Agent] = []

    @property
    def _model_calls_expected(self) -> bool:
        """Whether the cell's agents call a model and the product meters each run's calls (so a hire that really
        worked has metered calls); a product that records no run's calls (Paperclip) leaves the run's success."""
        return self.journey.cell.profile.model_server != "none" and self.journey.driver.meters_model_calls

    # ---- the hire -------------------------------------------------------------------------

    def hire_through_form(self, name: str, role: str) -> Agent:
        """Fill the hire form with the lead's manager, runner and connections, submit it, and judge what was stored."""
        journey, lead = self.journey, self.journey.lead
        connections = services_api(journey).connections()
        before = journey.api.agents()
        journey.evidence.snapshot("agents-before-hire", before)
        hire = Hire(
            name=name,
            role=role,
            reports_to=lead.name,
            adapter=lead.adapter,
            model=lead.model,
            connection_ids=rules.bound_to(lead.id, connections),
        )
        form = cast(HiringDriver, journey.driver).hire_form(journey.page, journey.instance.base_url)
        with journey.expecting("hire-form-shown", f"filling the hire form for {name}"):
            form.open().fill(hire)
        journey.screenshot("hire form filled")
        with (
            journey.leaving_settings(f"hiring {name}"),
            journey.expecting("agent-hired", f"submitting the hire form for {name}"),
        ):
            form.submit()
        journey.evidence.note(
            "hire", f"{name} ({role}) through the hire form, as {lead.name}'s {hire.adapter}/{hire.model}"
        )
        journey.entered_agent(hire, form)
        after = journey.api.agents()
        connections = services_api(journey).connections()
        kept = journey.evidence.snapshot("agents-after-hire", {"agents": after, "connections": connections})
        journey.require(judge(rules.one_agent, before, after, name), "one agent hired", kept)
        hired = next(agent for agent in after if agent.name == name)
        journey.require(judge(rules.reports_to_lead, hired, lead), "hire reports to the lead", kept)
        journey.require(judge(rules.same_runner, hired, lead), "hire on the lead's runner", kept)
        journey.require(
            judge(rules.same_connections, hired, lead, connections), "hire bound to the lead's connections", kept
        )
        self.after_hire = after
        return hired

    # ---- giving the hire work ---------------------------------------------------------------

    def ask_lead(self, hired: Agent, work: Work, check: Literal["first", "again"]) -> Task:
        """Ask the lead for the work; follow the child task it makes, grade the hire's delivery, wait for the lead."""
        journey = self.journey
        parent = journey.create_task(work.title, work.body)
        check_id = rules.FIRST_CHILD if check == "first" else rules.SAME_AGENT_AGAIN
        self._wait_for_child(parent, check_id)
        child = journey.open_child_task(parent)
        journey.wait_until_finished(child, f"{child.assignee_name} on the {work.phase} piece of work")
        delivery = journey.download_latest_delivery(child, phase=work.phase)
        journey.grade(delivery, mode=work.mode, task=work.oracle_task)
        journey.open_task(parent)
        journey.wait_until_finished(parent, "the lead")
        current = journey.api.task(parent.id)
        children = [journey.api.task(summary.id) for summary in current.children]
        team = journey.api.agents()
        kept = journey.evidence.snapshot(
            f"{work.phase}-use", {"parent": current, "children": children, "hired": hired, "agents": team}
        )
        if check == "first":
            verdict = rules.ran_child(check_id, current, children, hired, self._model_calls_expected)
        else:
            verdict = rules.same_agent_again(
                current, children, hired, self.after_hire, team, self._model_calls_expected
            )
        journey.require(verdict, f"{work.phase} piece of work by {hired.name}", kept)
        return current

    def _wait_for_child(self, parent: Task, check_id: str) -> None:
        """Until the lead has made a child task; a lead that finished (or was stopped) without one fails ``check_id``."""

        def child_or_settled() -> str | None:
            current = self.journey.api.task(parent.id)
            if current.children:
                return "child"
            return "settled" if current.settled and current.runs and not current.runs[-1].active else None

        if self.journey.wait(child_or_settled, f"a child task of task {parent.id}", "child-task-created") == "settled":
            runs = self.journey.api.task(parent.id).runs
            self.journey.fail_check(
                check_id, f"the lead's run {runs[-1].id} ended {runs[-1].status} without a child task on {parent.id}"
            )
