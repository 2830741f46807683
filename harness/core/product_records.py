"""The records a story and its checks read from any product, in the harness's own words.

A product driver translates its API into these models; stories, fault
modules and checks import only them, never a product's JSON. They list only
the fields stories rely on, so a product change that drops one fails loudly
at the driver's boundary instead of deep inside a story.
"""

from __future__ import annotations

import hashlib
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

# Ids are opaque: the testbed numbers its records, Paperclip names them with UUID strings.
# Compare them for equality only, never for order (use the records' times for that).
RecordId = int | str

TaskStatus = Literal["todo", "in_progress", "in_review", "blocked", "done", "cancelled"]
RunStatus = Literal["queued", "running", "succeeded", "failed", "cancelled"]
ACTIVE_RUN_STATUSES: tuple[RunStatus, ...] = ("queued", "running")
# A run a product's graceful-shutdown drain cut short, in the harness's words (a driver maps its own code to it).
SHUTDOWN_ERROR = "interrupted_by_shutdown"
# A run the product stopped because its agent's budget ran out (a driver maps its own code to it).
BUDGET_PAUSED = "budget_paused"
# A run cut short because a person paused its agent (a driver maps its own code to it).
PAUSED_BY_USER = "paused_by_user"
RunCause = Literal["assignment", "user_message", "user_decision", "child_result", "handoff", "recovery", "resumed"]
"""Why a product started a run, in the harness's words: its task was assigned, a user message or a person's
decision waited for it, a child task's result came back, another run handed the task on (a hand-off the product
documents), a run lost to a fault is tried again, or its agent was resumed (a raised budget, or the person's
resume after their pause) and takes up the work a pause cut short."""


class Record(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class Spend(Record):
    """Metered model spend; simulated (replay) cents are priced like real ones and never added to them."""

    cents: float = 0.0
    simulated_cents: float = 0.0
    calls: int = 0
    refused_calls: int = 0


class Company(Record):
    name: str
    budget_cents: int
    chat_connectors: bool = False
    spend_cents: int
    spend: Spend = Spend()


AgentStatus = Literal["active", "paused", "pending_approval", "terminated"]
"""An agent's standing, in the harness's words: only an ``active`` one is given work; a ``pending_approval`` one
waits for the board's approval of its hire (a product that creates nothing before approval never shows it)."""


class Agent(Record):
    id: RecordId
    name: str
    role: str
    reports_to: RecordId | None
    adapter: str
    model: str
    budget_cents: int | None = None
    status: AgentStatus = "active"
    spend: Spend = Spend()
    paused_for_budget: bool = Field(False, description="the product paused the agent because its budget ran out")


class Comment(Record):
    id: RecordId
    task_id: RecordId
    author_kind: Literal["user", "agent"]
    agent_id: RecordId | None
    author_name: str
    run_id: RecordId | None
    body: str
    created_at: str
    consumed_by_run_id: RecordId | None
    consumed_at: str | None
    # Runs the product started to hand this message over (a wake that carries it), the consumer's included.
    # A woken run other than the consumer received a message that was already consumed.
    woke_run_ids: list[RecordId] = []


READ_TOOLS = frozenset({"read_task", "read_inbox"})
DELIVER_TOOL = "deliver"


class Receipt(Record):
    """One tool step the agent's runner reported while it worked, in its own words."""

    id: str
    seq: int
    tool: str
    target: str
    ok: bool
    detail: str
    created_at: str

    @property
    def received_message_ids(self) -> list[str]:
        """The messages a read step says the agent received (``... ids 3,4``): the runner's own word, not the product's.

        Ids are compared as text, because records keep them opaque.
        """
        if self.tool not in READ_TOOLS or "ids " not in self.detail:
            return []
        return [part.strip() for part in self.detail.rpartition("ids ")[2].split(",") if part.strip() not in ("", "-")]

    @property
    def delivered_sha256(self) -> str | None:
        """The archive a deliver step says it handed over (``sha256 <hex>``): the runner's own word; None otherwise."""
        if self.tool != DELIVER_TOOL or "sha256 " not in self.detail:
            return None
        return self.detail.rpartition("sha256 ")[2].split()[0] or None


class RunLease(Record):
    """A sandboxed runner's identity, as the product records it: which sandbox, since when, from which image."""

    sandbox: str
    sandbox_id: str
    started_at: str
    image_digest: str
    active: bool
    released_at: str | None = None
    sandbox_gone: bool | None = None
    workspace_returned: bool | None = None

    @property
    def digest(self) -> str:
        """sha256 of the lease's identity (sandbox, start, image): what evidence keeps instead of the raw sandbox id."""
        return hashlib.sha256(f"{self.sandbox_id}\0{self.started_at}\0{self.image_digest}".encode()).hexdigest()


class RunIdentity(Record):
    runner_instance_id: str | None
    pid: int | None
    process_start_time: float | None
    lease: RunLease | None = None


class Run(Record):
    id: RecordId
    task_id: RecordId
    agent_id: RecordId
    status: RunStatus
    identity: RunIdentity
    queued_at: str
    started_at: str | None
    ended_at: str | None
    cost_cents: int
    error_code: str | None
    terminal: dict[str, Any] | None
    process_group_gone: bool | None
    receipts: list[Receipt]
    cause: RunCause | None = Field(None, description="why the product started the run; None: it does not say")
    spend: Spend = Spend()
    agent_reported_cost_usd: float | None = None  # the agent CLI's own figure (Claude Code), beside the metered one

    @property
    def active(self) -> bool:
        return self.status in ACTIVE_RUN_STATUSES


class Delivery(Record):
    id: RecordId
    task_id: RecordId
    run_id: RecordId
    sha256: str
    size: int
    files: list[str]
    created_at: str
    download_url: str


class TaskSummary(Record):
    id: RecordId
    title: str
    status: TaskStatus
    assignee_id: RecordId | None
    assignee_name: str | None
    parent_id: RecordId | None
    updated_at: str


class Task(TaskSummary):
    body: str
    comments: list[Comment]
    runs: list[Run]  # oldest first: the only order between runs a story may rely on
    deliveries: list[Delivery]
    children: list[TaskSummary]
    active_run_id: RecordId | None
    unconsumed_user_messages: int
    owed_runs: int = Field(
        0, description="runs the product has asked for on the task and not yet started (a wake it queued or deferred)"
    )

    @property
    def settled(self) -> bool:
        """Nothing running, nothing queued, no message waiting for the agent."""
        return self.active_run_id is None and self.unconsumed_user_messages == 0 and not self.owed_runs

    @property
    def at_rest(self) -> bool:
        """Settled after at least one run: nothing more happens on the task unless someone acts on it.

        A state a story waits for that has not come by then never will (the
        agent finished without saving the file, asking or delegating).
        """
        return self.settled and bool(self.runs) and not self.runs[-1].active

    def user_messages(self) -> list[Comment]:
        return [c for c in self.comments if c.author_kind == "user"]

    def agent_replies(self) -> list[Comment]:
        return [c for c in self.comments if c.author_kind == "agent"]

    def running_run_that_saved(self, filename: str | None) -> Run | None:
        """The premise of every fault: a run still running in its runner (a process, or a sandbox on its lease) that
        has saved ``filename`` (None: any file)."""
        return next(
            (
                run
                for run in self.runs
                if run.status == "running"
                and (run.identity.pid or run.identity.lease)
                and any(r.tool == "write_file" and filename in (None, r.target) for r in run.receipts)
            ),
            None,
        )


class Controller(Record):
    """The product's controller process as its API describes it: a new ``instance_id`` proves a restart."""

    instance_id: str
    pid: int | None


class StopResult(Record):
    run: Run
    process_group_gone: bool


class Activity(Record):
    id: RecordId
    at: str
    kind: str
    task_id: RecordId | None
    run_id: RecordId | None
    message: str


class Service(Record):
    """An installed outside service the product calls on its agents' behalf."""

    id: RecordId
    name: str


class Connection(Record):
    """A connection to a service; a product never shows its credential, so neither does this record."""

    id: RecordId
    service_id: RecordId
    service_name: str
    name: str
    policy: Literal["allow", "ask_first"]
    agent_ids: list[RecordId] = []


class Interaction(Record):
    """A request of an agent that waits for a person's decision (a protected service action), and the decision."""

    id: RecordId
    kind: str
    task_id: RecordId
    run_id: RecordId
    agent_id: RecordId
    agent_name: str
    addressed_to: str = "user"
    service_name: str | None = None
    connection_id: RecordId | None = None
    provider: str | None = None
    action: str
    status: Literal["pending", "approved", "declined"]
    decided_by: str | None = None
    decided_at: str | None = None
    outcome: str
    result: str | None = None
    options: list[str] = []  # a provider question's choices, in the order the product offers them
    disclosure: str | None = None  # what a provider question says about where the data would go
    choice: str | None = None  # the option chosen on a provider question
    created_at: str


class ProviderEntry(Record):
    """One outside provider in a product's catalog: a native connector, or the aggregators that reach it."""

    name: str
    native: bool
    aggregators: list[str]


class ProviderQuestionCard(Record):
    """A provider question as the person sees it on the task's page (a page object reads it off the page)."""

    interaction_id: str
    provider: str
    agent: str
    status: str
    options: list[str] = Field(description="the option buttons, in the order shown")
    disclosure: str = Field(description="the text that says where the data would go ('' when there is none)")
    choice: str = ""


class DecisionCard(Record):
    """A decision card as the person sees it on the task's page (a page object reads it off the page)."""

    interaction_id: str
    kind: str
    action: str
    service: str
    connection_id: str | None = Field(description="the connection the card names; None: the product's card shows none")
    provider: str = ""
    agent: str
    addressed_to: str = ""
    status: str
    buttons: dict[str, str] = Field(description="the card's yes/no buttons: approve|decline -> the label shown")


class EmailCard(Record):
    """What the person sees on an email setup card (a page object reads it off the page)."""

    password_fields: int
    key_link: str | None
    access_selectors: int = Field(description="selects, checkboxes and radio buttons on the card")
    modals: int = Field(description="dialogs open on the page")
    text: str


class SkillEntry(Record):
    """One entry of the company skill library: its id and slug are what identify it, never its heading."""

    id: RecordId
    slug: str
    name: str
    version: int


class Skill(SkillEntry):
    """A skill with its newest body (every save is a new version)."""

    body: str


class Hire(Record):
    """What a person enters in a product's hire form: who, reporting to whom, on which runner, with which connections."""

    name: str
    role: str
    reports_to: str = Field(description="the manager's name, as the form lists it")
    adapter: str
    model: str
    connection_ids: list[RecordId] = []


class HireApproval(Record):
    """A hire waiting for the board (or decided): whom it hires, and the agent it made, where the product made one."""

    id: RecordId
    name: str
    status: Literal["pending", "approved", "rejected"]
    agent_id: RecordId | None = Field(
        description="the agent the hire is for: made at approval (the testbed) or waiting with it, as some products do"
    )


class RoutineFire(Record):
    """One time a routine fired, as the routine's record lists it: the task it started."""

    task_id: RecordId
    source: str = Field(description="what fired it, in the product's words (webhook, schedule, ...)")
    created_at: str


class Routine(Record):
    """A routine: the work it starts for its agent each time a trigger fires, and its record of those times."""

    id: RecordId
    title: str
    assignee_id: RecordId
    fires: list[RoutineFire]


class ShownRoutineRun(Record):
    """One run as a routine's page lists it (a page object reads it off the page)."""

    task_id: str
    status: str = Field(description="the status it shows for the run's task, in the harness's TaskStatus words")


class ShownBudget(Record):
    """One agent's row on the product's cost page (a page object reads it off the page)."""

    agent: str
    spent_cents: float
    budget_cents: float | None
    paused_for_budget: bool
