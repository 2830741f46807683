"""The product's public API as a journey reads it: one base class, eleven members to write, defaults for the rest.

Every answer is a record of :mod:`harness.core.product_records`, so checks
read every product alike. The abstract members are the journey every story
takes (an agent, a task, its runs and deliveries); the others belong to a
capability (:data:`harness.products.capabilities.CAPABILITY_MEMBERS`) and by
default raise :class:`~harness.products.capabilities.Lacks`, so a client
overrides only what its product has. What each member feeds is in
docs/reference/driver-seam.md.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, NoReturn

from harness.core.product_records import (
    Activity,
    Agent,
    Company,
    Connection,
    Controller,
    HireApproval,
    Interaction,
    ProviderEntry,
    RecordId,
    Routine,
    Run,
    Service,
    Skill,
    SkillEntry,
    Task,
    TaskSummary,
)
from harness.products.capabilities import Lacks, capability_of


class ProductApi(ABC):
    """The public API reads (and the few writes) a journey makes, in harness records."""

    product = "this product"
    """How a refusal names the product ("no cell: <product> lacks <capability>")."""

    moves_only_when_read = False
    """True where the product's state moves only when it is read (the fake's world steps at each read): nothing
    happens between the story's own reads, so the invariant watch looks only at the story's waits."""

    def _lacks(self, member: str) -> NoReturn:
        raise Lacks(self.product, capability_of(member) or member, member)

    # ---- the journey every story takes ------------------------------------------------

    @abstractmethod
    def health(self) -> dict[str, Any]:
        """The product's own health answer: an instance has started once it answers."""

    @abstractmethod
    def controller(self) -> Controller:
        """The controller process as the product reports it (a restart fault compares it before and after)."""

    @abstractmethod
    def company(self) -> Company: ...

    @abstractmethod
    def agents(self) -> list[Agent]: ...

    @abstractmethod
    def tasks(self) -> list[TaskSummary]: ...

    @abstractmethod
    def task(self, task_id: RecordId) -> Task:
        """A task with its thread, runs and deliveries: the records the lifecycle checks are decided on."""

    @abstractmethod
    def run(self, run_id: RecordId) -> Run: ...

    @abstractmethod
    def activity(self) -> list[Activity]: ...

    @abstractmethod
    def workspace_hashes(self, task_id: RecordId) -> dict[str, str]:
        """sha256 by path of the task's workspace as the product lists it (a revision is checked against it)."""

    @abstractmethod
    def delivery_bytes(self, delivery_id: RecordId) -> bytes:
        """A delivery's bytes as its API serves them (compared with the ZIP the page downloads)."""

    @abstractmethod
    def create_agent(
        self,
        name: str,
        role: str = "coding agent",
        reports_to: RecordId | None = None,
        adapter: str = "scripted",
        model: str = "default",
    ) -> Agent:
        """An agent on the cell's profile: every journey hires its lead through this."""

    # ---- budget-pause -----------------------------------------------------------------

    def set_company_budget(self, cents: int) -> Company:
        self._lacks("set_company_budget")

    def set_agent_budget(self, agent_id: RecordId, cents: int | None) -> Agent:
        self._lacks("set_agent_budget")

    # ---- skills -----------------------------------------------------------------------

    def skills(self) -> list[SkillEntry]:
        self._lacks("skills")

    def skill(self, skill_id: RecordId) -> Skill:
        self._lacks("skill")

    # ---- services: connections hold a credential the product never shows; protected actions wait for a person -

    def install_service(self, name: str, url: str) -> Service:
        self._lacks("install_service")

    def add_connection(
        self, service_id: RecordId, name: str, credential: str, policy: str, agent_ids: list[RecordId]
    ) -> Connection:
        self._lacks("add_connection")

    def connections(self) -> list[Connection]:
        """The connections to installed services; a product without services has none, so the read-back of every
        setting a step must leave alone reads them on every product."""
        return []

    def set_chat_connectors(self, enabled: bool) -> Company:
        self._lacks("set_chat_connectors")

    def interactions(self, task_id: RecordId | None = None) -> list[Interaction]:
        """The requests waiting for (or decided by) a person; a product where nobody decides on requests has none,
        so a stall check that reads them on every product finds nothing there."""
        return []

    def decide(self, interaction_id: RecordId, decision: str) -> Any:
        """Send a decision through the API, as a replayed click would; returns the raw answer (``status_code``)."""
        self._lacks("decide")

    def approve_anywhere(self, interaction_id: RecordId) -> dict[str, int]:
        """Approve the request through every route the product offers a person to approve it (its card's own
        accept and any review queue of waiting actions), as a colleague who found it later would; each route's
        HTTP status, by route name. Used on a declined request, which every route must refuse."""
        self._lacks("approve_anywhere")

    def raw_reads(self) -> dict[str, bytes]:
        """The raw bodies of every public read that could carry a connection's credential, by path."""
        self._lacks("raw_reads")

    # ---- providers: a provider without a native connector is reached through an aggregator a person chooses -

    def providers(self) -> list[ProviderEntry]:
        self._lacks("providers")

    def choose(self, interaction_id: RecordId, choice: str) -> Any:
        """Answer a provider question through the API, as a replayed click would; returns the raw answer."""
        self._lacks("choose")

    # ---- hire-approval: the board approves new agents ---------------------------------

    def require_hire_approval(self, required: bool) -> None:
        self._lacks("require_hire_approval")

    def request_hire(
        self, name: str, role: str, reports_to: RecordId | None, adapter: str, model: str
    ) -> HireApproval | None:
        """Ask for a new agent, as the product's hire API takes it: the approval it waits for, or None when the
        product hired it at once (then it is in ``agents``)."""
        self._lacks("request_hire")

    def hire_approvals(self) -> list[HireApproval]:
        self._lacks("hire_approvals")

    # ---- agent-controls ---------------------------------------------------------------

    def offer_task(self, title: str, body: str, agent_id: RecordId) -> Task | None:
        """Create a task for the agent through the API: the task, or None when the product refused it (an agent
        that may take no work)."""
        self._lacks("offer_task")

    # ---- routines: work that starts itself for an agent when a trigger fires ------------

    def routines(self) -> list[Routine]:
        self._lacks("routines")

    def routine(self, routine_id: RecordId) -> Routine:
        self._lacks("routine")

    def deliver_webhook(self, routine_id: RecordId, delivery_id: str) -> None:
        """What an outside system does: post one delivery to the routine's webhook trigger, naming it
        ``delivery_id`` (the idempotency key a sender repeats when it retries). An answer that the delivery was
        already taken is not an error."""
        self._lacks("deliver_webhook")
