"""Pydantic models for everything that crosses the public API boundary.

Requests are strict (unknown fields rejected, lengths bounded) so bad input
fails with a 422 that names the field before anything is written.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.agents.metering.usage import Usage

TaskStatus = Literal["todo", "in_progress", "in_review", "blocked", "done", "cancelled"]
RunStatus = Literal["queued", "running", "succeeded", "failed", "cancelled"]
RunCause = Literal["assignment", "user_message", "user_decision", "handoff", "recovery", "resumed"]
"""Why the scheduler queued a run: its task was assigned, a user message or a person's decision waited for it,
another run handed the task on, a run lost to a fault is started again, or its agent was resumed (a raised
budget) and takes up the work a pause cut short."""
AuthorKind = Literal["user", "agent"]

# SQLite stores signed 64-bit integers; a larger number must be a 422 naming
# the field, not an OverflowError (a 500 and a reset connection) in the driver.
SQLITE_INT_MAX = 2**63 - 1
RowId = Annotated[int, Field(ge=1, le=SQLITE_INT_MAX)]
Count = Annotated[int, Field(ge=0, le=SQLITE_INT_MAX)]
# A model name reaches the runner's command line: no leading "-", a plain charset.
MODEL_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$"


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, allow_inf_nan=False)


# ---- requests -------------------------------------------------------------


class AgentCreate(Strict):
    name: str = Field(min_length=1, max_length=80, pattern=r"^[A-Za-z][A-Za-z0-9 _.-]*$")
    role: str = Field(default="engineer", min_length=1, max_length=80)
    reports_to: RowId | None = None
    adapter: str = Field(default="scripted", min_length=1, max_length=40)
    model: str = Field(default="default", min_length=1, max_length=80, pattern=MODEL_PATTERN)
    budget_cents: Count | None = None
    # The connections the new agent may use, bound in the same transaction as the hire (the hire form's checkboxes).
    connection_ids: list[RowId] = Field(default_factory=list, max_length=100)


class BudgetUpdate(Strict):
    """A hard spending limit in cents; null removes an agent's own limit (the company's still applies)."""

    budget_cents: Count | None


class TaskCreate(Strict):
    title: str = Field(min_length=1, max_length=200)
    body: str = Field(default="", max_length=20_000)
    assignee_id: RowId | None = None
    parent_id: RowId | None = None


class CommentCreate(Strict):
    body: str = Field(min_length=1, max_length=20_000)


class AgentEvent(Strict):
    """Every agent write carries a client-generated id; replays are answered, not re-applied."""

    event_id: str = Field(min_length=8, max_length=80, pattern=r"^[A-Za-z0-9_.:-]+$")


class InboxRequest(AgentEvent):
    pass


class AgentComment(AgentEvent):
    body: str = Field(min_length=1, max_length=20_000)


class ReceiptCreate(AgentEvent):
    seq: Count
    tool: str = Field(min_length=1, max_length=60)
    target: str = Field(default="", max_length=500)
    ok: bool = True
    detail: str = Field(default="", max_length=4_000)


class StatusUpdate(AgentEvent):
    status: TaskStatus


class ChildTaskCreate(AgentEvent):
    title: str = Field(min_length=1, max_length=200)
    body: str = Field(default="", max_length=20_000)
    assignee_name: str = Field(min_length=1, max_length=80)


class AssignUpdate(AgentEvent):
    assignee_name: str = Field(min_length=1, max_length=80)


class FinishRequest(AgentEvent):
    outcome: Literal["succeeded", "failed"]
    summary: str = Field(default="", max_length=4_000)
    cost_cents: Count = 0
    error_code: str | None = Field(default=None, max_length=80)
    agent_reported_cost_usd: float | None = Field(
        default=None,
        ge=0,
        description="what the agent CLI itself says the run cost (Claude Code's total_cost_usd), kept beside the"
        " metering proxy's figure for comparison; never counted as spend",
    )


# ---- responses ------------------------------------------------------------


class ModelCallReport(AgentEvent):
    """One model call as the run's metering proxy saw and priced it (admitted, completed, or refused)."""

    protocol: str = Field(max_length=40)
    provider: str = Field(max_length=40)
    model: str = Field(max_length=200)
    status: int
    usage: Usage | None  # the metering proxy's own usage record
    cost_cents: float = Field(ge=0)
    simulated: bool
    price_table: str = Field(max_length=80)
    refused: str | None = Field(default=None, max_length=2000)
    usage_estimated: bool = False
    spent_cents: float = 0
    budget_cents: float | None = None
    in_flight: bool = False  # admitted, about to be forwarded: recorded first, completed under the same event_id


class Spend(BaseModel):
    """Model spend in cents. Simulated (replay) cents are priced like real ones but never added to them."""

    cents: float = 0.0
    simulated_cents: float = 0.0
    calls: int = 0
    refused_calls: int = 0


class Health(BaseModel):
    ok: bool
    instance_id: str
    pid: int
    version: str = "1"
    defects: list[str] = Field(default_factory=list, description="product defects switched on (calibration only)")


class ShutdownMode(BaseModel):
    drain: bool = Field(description="this controller's shutdown drains its running runs (testbed/drain.py)")


class Company(BaseModel):
    name: str
    budget_cents: int
    chat_connectors: bool = False
    hire_approval: bool = False  # a new agent waits for the board's approval (testbed/team.py)
    spend_cents: int  # real spend, rounded up to whole cents
    spend: Spend


class Agent(BaseModel):
    id: int
    name: str
    role: str
    reports_to: int | None
    adapter: str
    model: str
    budget_cents: int | None = None
    status: Literal["active", "paused", "terminated"] = "active"  # only an active agent is given runs
    spend: Spend = Spend()
    paused_reason: Literal["budget"] | None = Field(None, description="why the agent may not act now (None: active)")
    paused_at: str | None = None
    created_at: str


class Comment(BaseModel):
    id: int
    task_id: int
    author_kind: AuthorKind
    agent_id: int | None
    author_name: str
    run_id: int | None
    body: str
    created_at: str
    consumed_by_run_id: int | None
    consumed_at: str | None


class Receipt(BaseModel):
    id: str
    run_id: int
    seq: int
    tool: str
    target: str
    ok: bool
    detail: str
    created_at: str


class RunLease(BaseModel):
    """A sandboxed runner's identity (the container environment): which sandbox runs the run, since when, from which
    image; ``active`` until the sandbox is stopped, its workspace brought back and the sandbox removed."""

    sandbox: Literal["container"]
    sandbox_id: str
    started_at: str
    image_digest: str
    active: bool = True
    released_at: str | None = None
    sandbox_gone: bool | None = None
    workspace_returned: bool | None = None


class RunIdentity(BaseModel):
    runner_instance_id: str | None
    pid: int | None
    process_start_time: float | None
    lease: RunLease | None = None


class Run(BaseModel):
    id: int
    task_id: int
    agent_id: int
    adapter: str
    model: str
    status: RunStatus
    identity: RunIdentity
    queued_at: str
    started_at: str | None
    ended_at: str | None
    cost_cents: int
    error_code: str | None
    terminal: dict[str, Any] | None
    process_group_gone: bool | None
    cause: RunCause | None = Field(None, description="why the run was queued (see RunCause); None: nothing asked")
    spend: Spend = Spend()
    agent_reported_cost_usd: float | None = None  # the CLI's own figure (Claude Code), beside the metered spend
    receipts: list[Receipt] = []


class Delivery(BaseModel):
    id: int
    task_id: int
    run_id: int
    sha256: str
    size: int
    files: list[str]
    created_at: str
    download_url: str


class TaskSummary(BaseModel):
    id: int
    title: str
    status: TaskStatus
    assignee_id: int | None
    assignee_name: str | None
    parent_id: int | None
    created_at: str
    updated_at: str


class Task(TaskSummary):
    body: str
    comments: list[Comment]
    runs: list[Run]
    deliveries: list[Delivery]
    children: list[TaskSummary]
    active_run_id: int | None
    unconsumed_user_messages: int
    spend: Spend = Spend()


class WorkspaceFile(BaseModel):
    path: str
    size: int
    sha256: str


class StopResult(BaseModel):
    run: Run
    process_group_gone: bool


class Activity(BaseModel):
    id: int
    at: str
    kind: str
    task_id: int | None
    run_id: int | None
    agent_id: int | None
    message: str


class AgentRunContext(BaseModel):
    """What a runner learns about its own run: the task, its history, its team."""

    run_id: int
    task: Task
    agent: Agent
    agents: list[Agent]
    budget_remaining_cents: float | None = (
        None  # the tighter of the agent's and the company's, in this run's kind of spend
    )


class InboxResponse(BaseModel):
    messages: list[Comment]


class Ack(BaseModel):
    ok: bool = True
    id: int | str | None = None


# ---- services, connections and decisions ------------------------------------------

ConnectionPolicy = Literal["allow", "ask_first"]
InteractionStatus = Literal["pending", "approved", "declined"]
InteractionKind = Literal["service_action", "connection_intent", "email_setup", "provider_question"]
InteractionOutcome = Literal["waiting", "completed", "failed", "declined"]


class ServiceCreate(Strict):
    """An installed service: an MCP server on loopback (streamable HTTP) that the product calls for its agents."""

    name: str = Field(min_length=1, max_length=80, pattern=r"^[A-Za-z][A-Za-z0-9 _.-]*$")
    url: str = Field(min_length=1, max_length=500, pattern=r"^http://(127\.0\.0\.1|localhost)(:\d{1,5})?/.*$")


class ConnectionCreate(Strict):
    """A credential for a service, held by the product only, and the agents allowed to use it."""

    name: str = Field(min_length=1, max_length=80)
    credential: str = Field(min_length=8, max_length=4_000, repr=False)
    policy: ConnectionPolicy = "ask_first"
    agent_ids: list[RowId] = Field(default_factory=list, max_length=100)


class DecisionCreate(Strict):
    decision: Literal["approve", "decline"]
    # An email setup is approved by saving the AgentMail API key typed into its card (kept sealed, never shown).
    api_key: str | None = Field(default=None, min_length=8, max_length=4_000, repr=False)
    # A provider question is answered with one of its options: an aggregator approves, "None" declines.
    choice: str | None = Field(default=None, min_length=1, max_length=40)


class ServiceCallCreate(AgentEvent):
    """An agent asks the product to run one action of a service through a connection bound to it."""

    connection_id: RowId
    action: str = Field(min_length=1, max_length=80)
    arguments: dict[str, str] = Field(default_factory=dict, max_length=20)


class ServiceAction(BaseModel):
    name: str
    description: str
    read_only: bool


class Service(BaseModel):
    id: int
    name: str
    url: str
    actions: list[ServiceAction]
    created_at: str


class Connection(BaseModel):
    """A connection as every API shows it: never its credential, only that one is held."""

    id: int
    service_id: int
    service_name: str
    name: str
    policy: ConnectionPolicy
    agent_ids: list[int]
    credential_held: bool
    created_at: str


class Interaction(BaseModel):
    """A request an agent made that waits for a person's decision, and that decision once made."""

    id: int
    kind: InteractionKind
    task_id: int
    run_id: int
    agent_id: int
    agent_name: str
    addressed_to: str = Field(description="who is asked to decide: the company's user")
    service_id: int | None
    service_name: str | None
    connection_id: int | None
    connection_name: str | None
    provider: str | None = Field(description="the outside provider a connection intent or an email setup names")
    action: str
    arguments: dict[str, str]
    status: InteractionStatus
    decided_by: str | None
    decided_via: str | None
    decided_at: str | None
    outcome: InteractionOutcome
    result: str | None
    options: list[str] = Field(default_factory=list, description="a provider question's choices, in the order shown")
    disclosure: str | None = Field(
        default=None, description="what a provider question tells the person before they choose"
    )
    choice: str | None = Field(default=None, description="the option the person chose on a provider question")
    created_at: str


class ProviderEntry(BaseModel):
    """One outside provider the product knows: reached natively (its own connection card) or only through
    the aggregators listed, in the order a person is offered them."""

    name: str
    native: bool
    aggregators: list[str]


class ConnectionRequestCreate(AgentEvent):
    """An agent asks the person to connect an outside provider the company has no connection to."""

    provider: str = Field(min_length=1, max_length=80, pattern=r"^[A-Za-z][A-Za-z0-9 _.-]*$")
    reason: str = Field(default="", max_length=2_000)


class EmailSetupCreate(AgentEvent):
    """An agent asks the person to set up an email address for it (an AgentMail API key on a card)."""

    reason: str = Field(default="", max_length=2_000)


class SettingsUpdate(Strict):
    chat_connectors: bool


class ServiceCallResult(BaseModel):
    """What the agent learns at once: the result (allowed or read-only action), or the pending interaction."""

    status: Literal["completed", "pending", "failed", "declined"]
    interaction_id: int | None = None
    result: str | None = None
