"""The page objects a journey drives: what a person sees and presses, as protocols a driver's pages implement.

A driver's page classes hold the product's selectors (``data-testid``,
roles, labels); stories and steps see only these protocols, so a story never
names a selector. A page a product does not have is never asked for: the
driver member that would open it is a capability (:mod:`harness.products.capabilities`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from harness.core.product_records import (
    DecisionCard,
    EmailCard,
    Hire,
    HireApproval,
    ProviderQuestionCard,
    RecordId,
    ShownBudget,
    ShownRoutineRun,
)


class TaskView(Protocol):
    """A task's page: its status, thread, deliveries and Stop, as a person sees them."""

    @property
    def task_id(self) -> RecordId: ...

    @property
    def shows(self) -> tuple[str, ...]:
        """The new-task form's fields the page shows (``title``, ``body``), declared before any look: one it
        declares yet leaves out of a look fails readback.shown, one it does not declare is not compared."""
        ...

    def open(self) -> TaskView: ...
    def reload(self) -> TaskView: ...
    def open_child(self, index: int = 0) -> TaskView: ...
    def status(self) -> str: ...
    def wait_until_status(self, status: str, timeout: float = ...) -> None: ...
    def shown_fields(self) -> Mapping[str, str | None]:
        """What the page shows of what the person typed into the new-task form, read as it stands: each field
        of ``shows``, None where it shows nothing."""
        ...

    def user_messages_with(self, text: str) -> list[Any]: ...
    def latest_reply(self) -> Any | None: ...
    def send_message(self, text: str, timeout: float = ...) -> Any: ...
    def submit_message(self, text: str) -> None: ...
    def scroll_latest_reply_into_view(self) -> None: ...
    def click_stop(self, run_id: RecordId, timeout: float = ...) -> bool: ...
    def wait_for_stop_result(self, run_id: RecordId, timeout: float = ...) -> None: ...
    def download_delivery_id(self, delivery_id: RecordId, timeout: float = ...) -> bytes: ...


class RenderedPage(Protocol):
    """A page whose markup a check searches for what must never be rendered (a credential)."""

    def rendered_html(self) -> str: ...


class DecisionView(TaskView, RenderedPage, Protocol):
    """A task's page in a product that asks a person to decide on an agent's requests (cards in the thread)."""

    def decision_cards(self) -> list[DecisionCard]: ...
    def wait_for_decision_card(self, interaction_id: RecordId, timeout: float = ...) -> None: ...
    def decide(self, interaction_id: RecordId, approve: bool, timeout: float = ...) -> None: ...
    def email_card(self, interaction_id: RecordId) -> EmailCard: ...


class ProviderQuestionView(DecisionView, Protocol):
    """A task's page in a product that asks a person which provider may reach a service (provider questions)."""

    def provider_question(self, interaction_id: RecordId) -> ProviderQuestionCard: ...
    def choose(self, interaction_id: RecordId, option: str, timeout: float = ...) -> None: ...


class TaskListView(Protocol):
    """The product's start page, where a person creates a task."""

    def open(self) -> TaskListView: ...
    def create_task(self, title: str, body: str, assignee: str | None = None) -> TaskView: ...


class StudioView(Protocol):
    """A skill's editor (Skill Studio): the id and slug it shows, its body as shown, and an edit saved."""

    def skill_id(self) -> str: ...
    def slug(self) -> str: ...
    def body(self) -> str: ...
    def add_section(self, heading: str, text: str) -> StudioView:
        """Add a section (``heading``, then ``text``) at the end of the body, as a person types it, and press Save;
        returns Studio once the product shows the edit saved."""
        ...

    def reload(self) -> StudioView: ...


class TaskSkillsView(Protocol):
    """Where a person finds the skills a task's runs created: the product's notices of them (the testbed's cards in
    the task's thread, Paperclip's activity-feed entries naming the task's run) and the task's skills sidebar.

    ``where`` names the notices' place for the evidence; a product whose
    task pages have no skills sidebar does not observe ``task-skills`` and
    refuses the sidebar's methods.
    """

    where: str

    def notice_skill_ids(self) -> list[str]: ...
    def wait_for_notice(self, timeout: float = ...) -> None: ...
    def open_notice(self, index: int = 0) -> StudioView:
        """Follow a notice to its skill, as the product leads a person there, and open it in Studio."""
        ...

    def sidebar_skill_ids(self) -> list[str]: ...
    def open_from_sidebar(self, skill_id: RecordId) -> StudioView: ...


class HireFormView(Protocol):
    """The product's hire form (story hire-reuse): filled as a person would, then submitted."""

    @property
    def shows(self) -> tuple[str, ...]:
        """The hire form's fields the page shows of an agent it lists, declared before any look (see TaskView.shows)."""
        ...

    def open(self) -> HireFormView: ...
    def fill(self, hire: Hire) -> None:
        """Enter every field, without submitting (the story keeps a screenshot of the filled form)."""
        ...

    def submit(self) -> None:
        """Press the form's button and wait until the product shows the new agent."""
        ...

    def shown_agent(self, name: str) -> Mapping[str, str | None]:
        """What the page (the form's, as it stands) shows of the agent named ``name``: each field of ``shows``
        (of the hire form's ``name``, ``role``, ``reports_to``, ``adapter``, ``model``)."""
        ...


class ApprovalsView(Protocol):
    """Where the board decides on hires waiting for approval (story hire-approval)."""

    def open(self) -> ApprovalsView: ...
    def wait_for(self, approval: HireApproval, timeout: float = ...) -> None:
        """Until the page lists the hire as waiting for a decision."""
        ...

    def decide(self, approval: HireApproval, approve: bool, timeout: float = ...) -> None:
        """Press Approve or Reject on the hire, and wait until the page no longer offers the decision."""
        ...


class AgentView(Protocol):
    """An agent's page, with its controls (story agent-controls): each press waits until the page shows the result."""

    def open(self) -> AgentView: ...
    def pause(self, timeout: float = ...) -> None: ...
    def resume(self, timeout: float = ...) -> None: ...
    def terminate(self, timeout: float = ...) -> None: ...


class RoutineView(Protocol):
    """A routine's page: its record of runs, as a person reads it."""

    @property
    def routine_id(self) -> RecordId: ...

    def reload(self) -> RoutineView: ...
    def runs(self) -> list[ShownRoutineRun]: ...


class RoutinesView(Protocol):
    """Where a person creates a routine: its task's title and instructions, its agent, a webhook trigger."""

    def open(self) -> RoutinesView: ...
    def create(self, title: str, instructions: str, agent: str) -> RoutineView:
        """Fill and submit the form; returns the new routine's page."""
        ...


class CostPageView(Protocol):
    """The product's cost page: each agent's spend, budget and whether its budget paused it; the budget form."""

    def open(self) -> CostPageView: ...
    def agent(self, name: str) -> ShownBudget: ...
    def set_budget(self, name: str, cents: int) -> None:
        """Enter a new budget for the agent, save it, and wait until the page shows it."""
        ...
