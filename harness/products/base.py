"""The product driver seam: what a journey needs from a product, and nothing more.

A story acts on a product through four things, each a protocol here so that
any product can supply them:

- an **instance**: an isolated copy of the product (own data, ports and
  processes) that can be started, have its controller stopped and started
  again, and be torn down leaving nothing behind;
- an **API** that answers in :mod:`harness.core.product_records`;
- **pages**: the task list and a task's page, as a person uses them in the
  browser (selectors live in the driver's page objects, never in a story);
- the product's **credential shapes**, so the evidence scan recognises them.

The lifecycle checks read the same records through
:func:`harness.checks.facts.lifecycle_facts`, so a driver never writes checks.
A driver is a module ``harness.products.<name>`` exposing ``DRIVER``; a cell's
environment names the product it runs against.
"""

from __future__ import annotations

import re
import signal
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, Protocol, runtime_checkable

from harness.core.product_records import (
    Activity,
    Agent,
    Company,
    Connection,
    Controller,
    DecisionCard,
    EmailCard,
    Hire,
    HireApproval,
    Interaction,
    ProviderEntry,
    ProviderQuestionCard,
    RecordId,
    Routine,
    Run,
    Service,
    ShownBudget,
    ShownRoutineRun,
    Skill,
    SkillEntry,
    Task,
    TaskSummary,
)


class InstanceError(RuntimeError):
    """The product did not start (or stop) as asked: an infrastructure failure, not a product verdict."""


class ProductApi(Protocol):
    """The public API reads (and the few writes) a journey makes, in harness records."""

    def health(self) -> dict[str, Any]: ...
    def controller(self) -> Controller: ...
    def company(self) -> Company: ...
    def agents(self) -> list[Agent]: ...
    def tasks(self) -> list[TaskSummary]: ...
    def task(self, task_id: RecordId) -> Task: ...
    def run(self, run_id: RecordId) -> Run: ...
    def activity(self) -> list[Activity]: ...
    def workspace_hashes(self, task_id: RecordId) -> dict[str, str]: ...
    def delivery_bytes(self, delivery_id: RecordId) -> bytes: ...

    def create_agent(
        self, name: str, role: str = ..., reports_to: RecordId | None = ..., adapter: str = ..., model: str = ...
    ) -> Agent: ...

    def set_company_budget(self, cents: int) -> Company: ...
    def set_agent_budget(self, agent_id: RecordId, cents: int | None) -> Agent: ...

    # The company skill library (story create-skill-studio); a product without one raises NotImplementedError.
    def skills(self) -> list[SkillEntry]: ...
    def skill(self, skill_id: RecordId) -> Skill: ...


class ServicesApi(ProductApi, Protocol):
    """A product with installed services: connections hold a credential the product never shows, and
    protected actions wait for a person's decision (interactions)."""

    def install_service(self, name: str, url: str) -> Service: ...
    def add_connection(
        self, service_id: RecordId, name: str, credential: str, policy: str, agent_ids: list[RecordId]
    ) -> Connection: ...
    def connections(self) -> list[Connection]: ...
    def set_chat_connectors(self, enabled: bool) -> Company: ...
    def interactions(self, task_id: RecordId | None = ...) -> list[Interaction]: ...
    def decide(self, interaction_id: RecordId, decision: str) -> Any:
        """Send a decision through the API, as a replayed click would; returns the raw answer (``status_code``)."""
        ...

    def approve_anywhere(self, interaction_id: RecordId) -> dict[str, int]:
        """Approve the request through every route the product offers a person to approve it (its card's own
        accept and any review queue of waiting actions), as a colleague who found it later would; each route's
        HTTP status, by route name. Used on a declined request, which every route must refuse."""
        ...

    def raw_reads(self) -> dict[str, bytes]:
        """The raw bodies of every public read that could carry a connection's credential, by path."""
        ...


class ProvidersApi(ServicesApi, Protocol):
    """A product with a provider catalog: a provider without a native connector is reached through an
    aggregator the person chooses on a provider question."""

    def providers(self) -> list[ProviderEntry]: ...
    def choose(self, interaction_id: RecordId, choice: str) -> Any:
        """Answer a provider question through the API, as a replayed click would; returns the raw answer."""
        ...


class TeamApi(ProductApi, Protocol):
    """A product whose company can require the board's approval for new agents (capability ``hire-approval``)."""

    def require_hire_approval(self, required: bool) -> None: ...
    def request_hire(
        self, name: str, role: str, reports_to: RecordId | None, adapter: str, model: str
    ) -> HireApproval | None:
        """Ask for a new agent, as the product's hire API takes it: the approval it waits for, or None when the
        product hired it at once (then it is in ``agents``)."""
        ...

    def hire_approvals(self) -> list[HireApproval]: ...


class ControlsApi(ProductApi, Protocol):
    """A product whose agents can be paused, resumed and terminated (capability ``agent-controls``)."""

    def offer_task(self, title: str, body: str, agent_id: RecordId) -> Task | None:
        """Create a task for the agent through the API: the task, or None when the product refused it (an agent
        that may take no work)."""


class RoutinesApi(ProductApi, Protocol):
    """A product with routines: work that starts itself for an agent when a trigger fires."""

    def routines(self) -> list[Routine]: ...
    def routine(self, routine_id: RecordId) -> Routine: ...
    def deliver_webhook(self, routine_id: RecordId, delivery_id: str) -> None:
        """What an outside system does: post one delivery to the routine's webhook trigger, naming it
        ``delivery_id`` (the idempotency key a sender repeats when it retries). An answer that the delivery was
        already taken is not an error."""
        ...


class ProductInstance(Protocol):
    """One isolated, running copy of the product."""

    base_url: str
    data_dir: Path

    @property
    def api(self) -> ProductApi: ...

    @property
    def agent_workspaces(self) -> Path:
        """The folder holding every agent workspace on disk (the secret scan reads it after the run)."""
        ...

    def issued_secrets(self) -> dict[str, str]:
        """Label to value of the secrets the instance handed out (run tokens, agent keys) that the harness can
        know: the evidence scan looks for these values, beside the product's credential shapes. Read before
        ``close`` (which removes the data folder)."""
        ...

    def start(self) -> ProductInstance:
        """Start (or start again, on the same data and port) and return once it answers."""
        ...

    def stop_controller(self, sig: signal.Signals = signal.SIGTERM) -> None:
        """Stop only the controller; the agents' runners keep going."""
        ...

    def close(self) -> None:
        """Tear everything down (controller, runners, helpers, data); safe to call twice."""
        ...

    def log_paths(self) -> list[Path]: ...
    def process_alive(self, pid: int, start_time: float) -> bool: ...
    def process_group_alive(self, pgid: int) -> bool: ...


class TaskView(Protocol):
    """A task's page: its status, thread, deliveries and Stop, as a person sees them."""

    task_id: RecordId
    shows: ClassVar[tuple[str, ...]]
    """The new-task form's fields the page shows (``title``, ``body``), declared before any look: one it
    declares yet leaves out of a look fails readback.shown, one it does not declare is not compared."""

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

    shows: ClassVar[tuple[str, ...]]
    """The hire form's fields the page shows of an agent it lists, declared before any look (see TaskView.shows)."""

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

    routine_id: RecordId

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


@runtime_checkable
class KeepsThingsOutside(Protocol):
    """A driver whose instances keep things outside their run folder that no process names: a run killed outright
    (no teardown) leaves them, so the next run's clean-up asks the driver to remove them."""

    def remove_leftovers(self, run_folder: Path) -> None:
        """Remove what the instances started under ``run_folder`` keep outside it (for example sandboxes on an
        engine); an instance torn down normally kept nothing, and then nothing is asked of anything."""
        ...


class ProductDriver(Protocol):
    """Everything product-specific a journey uses; one module per product implements it."""

    name: str
    secret_patterns: Mapping[str, re.Pattern[bytes]]
    # Whether each run's spend counts the model calls it made (the testbed's metering proxy does): a replay
    # cell then checks that every call the replay answered is on the product's record (metering.calls-metered).
    meters_model_calls: bool

    def version(self) -> str | None:
        """The product's release as this machine runs it, for provenance (None when it is not installed)."""
        ...

    def published_assets(self) -> frozenset[str]:
        """sha256 of the files the product serves alike to every visitor (its web UI's bundles).

        A trace records them byte for byte; a credential shape inside them is
        the product's own public text, not this run's secret (see ``scan_tree``).
        """
        ...

    def warm_up(self, many_instances: bool) -> None:
        """Begin, in the background, what the first instance would otherwise wait for; return at once.

        Called before the browser launches in a process about to play this
        product's cells, so the two overlap (the testbed starts the forkserver
        its controllers are forked from). ``many_instances``: the process will
        start more than one, so a start-up cost shared by all of them pays
        (the testbed's forkserver then imports the MCP SDK too). A driver with
        nothing to begin does nothing.
        """
        ...

    def cool_down(self) -> None:
        """End what ``warm_up`` or the first instance began, once the process has stopped its last instance.

        Called where the process's cells end (a `harness run` session, a cell
        worker), so the run folder's release finds no helper of this driver
        to report as left behind.
        """
        ...

    def start_instance(
        self,
        pace_s: float,
        defects: Sequence[str] = (),
        model_upstream: str | None = None,
        agent_time_limit_s: float | None = None,
    ) -> ProductInstance:
        """A new isolated instance, started; ``pace_s`` is the scripted agent's step time.

        ``defects`` names product defects to switch on (calibration only; a
        driver whose product has none refuses any name, so a calibration run
        can never pass by silently running the healthy product). A driver that
        runs live agent CLIs also takes ``model_upstream`` (keyword): the model
        server its agents' metering proxies forward to (the replay server),
        and ``agent_time_limit_s``: each live agent run's wall-clock limit
        (None: the product's own).
        """
        ...

    def task_list(self, page: Any, base_url: str) -> TaskListView: ...
    def task_page(self, page: Any, base_url: str, task_id: RecordId) -> TaskView: ...


class SkillsDriver(ProductDriver, Protocol):
    """A driver whose product declares the ``skills`` capability (a company skill library and its editor)."""

    def task_skills(self, page: Any, base_url: str, task_id: RecordId) -> TaskSkillsView:
        """Where a person finds the skills the task's runs created."""
        ...


class ServicesDriver(ProductDriver, Protocol):
    """A driver whose product declares the ``services`` capability (installed services and their connections)."""

    def services_page(self, page: Any, base_url: str) -> RenderedPage:
        """Where a person sees the installed services and their connections, opened."""
        ...


class HiringDriver(ProductDriver, Protocol):
    """A driver whose product declares the ``hiring`` capability (a hire form)."""

    def hire_form(self, page: Any, base_url: str) -> HireFormView:
        """Where a person hires an agent."""
        ...


class ApprovalsDriver(ProductDriver, Protocol):
    """A driver whose product declares the ``hire-approval`` capability (the board approves new agents)."""

    def approvals_page(self, page: Any, base_url: str) -> ApprovalsView: ...


class AgentControlsDriver(ProductDriver, Protocol):
    """A driver whose product declares the ``agent-controls`` capability (pause, resume, terminate an agent)."""

    def agent_page(self, page: Any, base_url: str, agent_id: RecordId) -> AgentView: ...


class RoutinesDriver(ProductDriver, Protocol):
    """A driver whose product declares the ``routines`` capability."""

    def routines_page(self, page: Any, base_url: str) -> RoutinesView: ...
    def routine_page(self, page: Any, base_url: str, routine_id: RecordId) -> RoutineView: ...


class BudgetsDriver(ProductDriver, Protocol):
    """A driver whose product declares the ``budget-pause`` capability (a cost page, budgets that pause agents)."""

    def cost_page(self, page: Any, base_url: str) -> CostPageView: ...
