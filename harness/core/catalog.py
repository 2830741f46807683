"""The catalog: which suites, profiles, environments and cases exist, and the cells they make.

A *cell* is suite x profile x environment x case; its execution ID
``<suite>.<profile>.<environment>.<case>`` is what users type, what results are
filed under and what shards split. Everything here is data plus a few derived
facts, so selection, the runner and the report all read the same truth.

Paid (live) profiles live only in the manual-only suite ``everyday-workflows``;
the free ``scripted`` profile runs the same cases in ``everyday-workflows-scripted``
so that ``--all`` never spends money.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import shutil
from collections.abc import Callable, Mapping
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field, model_validator

from harness.core.verdicts import EvidenceMode

# A check id: a family and a name, dot-separated, nothing a pattern could match more than itself with.
CheckId = Annotated[str, Field(pattern=r"^[a-z]+(\.[a-z0-9][a-z0-9-]*)+$")]
# Dots separate the parts of an execution ID, so no name may contain one.
NAME_PATTERN = r"[a-z0-9][a-z0-9-]*"
Name = Annotated[str, Field(pattern=rf"^{NAME_PATTERN}$")]
# suite.profile.environment.case
EXECUTION_ID = re.compile(rf"{NAME_PATTERN}(\.{NAME_PATTERN}){{3}}")

LIVE_DEADLINE_S = 12 * 60
REPLAY_DEADLINE_S = 5 * 60
MAX_RUN_RECORDS = 12
# The seed suite's figures for delegation and hiring cells: one attempt, and a hard stop of this many cents
# for the company and for the lead agent (applied through the product's budgets wherever agents call a model).
DELEGATION_HARD_STOP_CENTS = 1_000


class _Frozen(BaseModel):
    """Catalog entries are values: immutable, hashable, and strict about unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class Profile(_Frozen):
    """Which agent runs a cell, and what it needs from the machine before it may run."""

    name: Name
    adapter: str
    model: str
    live: bool
    evidence_mode: EvidenceMode
    # Names only, never values: these are checked for presence and reported in skip reasons.
    required_env: tuple[str, ...] = ()
    required_binary: str | None = None
    # Where a live agent CLI's model calls go: "replay" starts the local model replay
    # server for each attempt; "provider" is the real API (through the metering proxy).
    model_server: Literal["none", "replay", "provider"] = "none"
    agent_cli: str | None = None  # the agent CLI this profile runs (its version goes into provenance)
    only_cases: tuple[str, ...] = ()  # when set, the only cases this profile makes cells for
    description: str = ""

    @model_validator(mode="after")
    def _evidence_matches_liveness(self) -> Profile:
        # A scripted pass must never be labelled live evidence, nor the other way round.
        if self.live != (self.evidence_mode == "live"):
            raise ValueError(f"profile {self.name}: live={self.live} contradicts evidence_mode={self.evidence_mode}")
        return self


class Environment(_Frozen):
    """Where the runner executes (only ``local`` today, ``container`` later) and which product it serves.

    ``product`` names the driver package under ``harness.products`` that a
    cell of this environment starts and drives.
    """

    name: Name
    product: Name = "testbed"
    fault_window_scale: float = Field(
        default=1.0,
        ge=1.0,
        description="how many times a case's scripted step time the agent takes here: a product whose UI answers"
        " slower than the testbed's needs the same window for a person to act in, measured in its own latency",
    )
    shown_wait_s: float = Field(
        default=15.0,
        gt=0,
        description="seconds a page may take to show what the product already has (a message it stored, a"
        " delivery it lists, a card for a request it made, a status it records); past that the product failed to"
        " show it. The testbed's pages refresh live within a second; Paperclip's took 19 s at load 11",
    )
    scripted_deadline_scale: float = Field(
        default=1.0,
        ge=1.0,
        description="how many times a case's scripted deadline a cell may take here: the slower agent of"
        " fault_window_scale thinks longer, and once more for each late message it rebuilds for",
    )
    description: str = ""


class Case(_Frozen):
    """One story and the bounds an attempt of it must stay within."""

    name: Name
    story: str = Field(description="importable module of the story, e.g. stories.build_revise")
    scripted_deadline_s: int = Field(gt=0)
    live_deadline_s: int = Field(default=LIVE_DEADLINE_S, gt=0)
    replay_deadline_s: int = Field(
        default=REPLAY_DEADLINE_S,
        gt=0,
        description="a real CLI against the replay: it starts slowly, once per run (a story with more runs needs more)",
    )
    max_run_records: int = Field(default=MAX_RUN_RECORDS, gt=0)
    scripted_pace_s: float | None = Field(
        default=None, gt=0, description="scripted agent seconds per step; a fault needs a window to land in"
    )
    hard_stop_cents: int | None = Field(
        default=None,
        ge=0,
        description="the company's and the lead agent's budget for cells that call a model (None: the product's own)",
    )
    one_attempt: bool = Field(
        default=False, description="never retried automatically: a second paid attempt doubles the spend"
    )
    description: str = ""

    @classmethod
    def delegation(cls, **fields: object) -> Case:
        """A delegation or hiring case: the seed suite's one attempt and 1,000-cent hard stop."""
        return cls.model_validate({"hard_stop_cents": DELEGATION_HARD_STOP_CENTS, "one_attempt": True, **fields})


class KnownFinding(_Frozen):
    """A product defect the stories found and reported, declared so a campaign can tell it from a new one.

    The cell's verdict stays ``failed`` under the checks that name what the
    product did, in its record, summary and report: a finding is never turned
    into a pass. It changes only what the campaign's exit status means: a cell
    that fails exactly as declared is an expected result (like pytest's strict
    xfail), while one that fails on anything else, or passes, ends the run
    non-zero, so a fix or a new defect is noticed the same day.
    """

    case: Name
    checks: tuple[CheckId, ...] = Field(min_length=1, description="checks that fail on every run")
    may_also_fail: tuple[CheckId, ...] = Field(
        default=(),
        description="exact check ids a race inside the product decides, run by run: never a family or pattern, so a"
        " new regression in the same family is not taken for the finding",
    )
    what: str = Field(min_length=1, description="what the product did, as the closing note and README report it")

    def explains(self, failed_checks: set[str]) -> bool:
        """The failure is this finding: every declared check failed, and nothing outside the declared set."""
        return set(self.checks) <= failed_checks <= {*self.checks, *self.may_also_fail}


class Suite(_Frozen):
    """A purpose, with every member spelled out so its definition hash covers all of them."""

    name: Name
    manual_only: bool
    description: str
    profiles: tuple[Profile, ...]
    environments: tuple[Environment, ...]
    cases: tuple[Case, ...]
    known_findings: tuple[KnownFinding, ...] = ()

    @model_validator(mode="after")
    def _findings_name_its_cases(self) -> Suite:
        cases = {case.name for case in self.cases}
        named = [finding.case for finding in self.known_findings]
        if unknown := sorted(set(named) - cases):
            raise ValueError(f"suite {self.name}: known findings for cases it does not hold: {unknown}")
        if len(named) != len(set(named)):
            raise ValueError(f"suite {self.name}: more than one known finding for a case")
        return self

    @model_validator(mode="after")
    def _paid_profiles_only_in_manual_suites(self) -> Suite:
        # The promise "--all never spends money" is enforced here, not just by convention.
        live = [p.name for p in self.profiles if p.live]
        if live and not self.manual_only:
            raise ValueError(f"suite {self.name} has live profiles {live} but is not manual-only")
        return self


class Cell(_Frozen):
    """One suite x profile x environment x case: the unit that is selected, run and reported."""

    suite: Suite
    profile: Profile
    environment: Environment
    case: Case

    @computed_field  # type: ignore[prop-decorator]
    @property
    def execution_id(self) -> str:
        return f"{self.suite.name}.{self.profile.name}.{self.environment.name}.{self.case.name}"

    @property
    def paid(self) -> bool:
        """A live profile calls a real model and costs money."""
        return self.profile.live

    @property
    def known_finding(self) -> KnownFinding | None:
        """The product defect this cell is declared to show, if any."""
        return next((f for f in self.suite.known_findings if f.case == self.case.name), None)

    @property
    def manual(self) -> bool:
        """Manual cells run only when their suite or exact ID is named."""
        return self.suite.manual_only

    @property
    def deadline_s(self) -> int:
        """Live agents get minutes; the scripted agent is fast, so a long wait means a bug.

        A real CLI against the replay is deterministic but starts slowly (OpenCode takes
        seconds per start on a shared machine), so it gets the replay window, scaled like
        the scripted deadline where the environment's agent thinks longer.
        """
        if self.profile.live:
            return self.case.live_deadline_s
        if self.profile.model_server == "replay":
            return round(
                max(self.case.replay_deadline_s, self.case.scripted_deadline_s)
                * self.environment.scripted_deadline_scale
            )
        return round(self.case.scripted_deadline_s * self.environment.scripted_deadline_scale)

    @property
    def evidence_mode(self) -> EvidenceMode:
        return self.profile.evidence_mode

    def hard_stop_cents(self, override: int | None = None) -> int | None:
        """The budget a cell's product gets for its company and lead: the run's setting, else the case's.

        None where no agent calls a model (the scripted agent spends nothing)
        or neither sets one (the product's own budgets stand).
        """
        if self.profile.model_server == "none":
            return None
        return override if override is not None else self.case.hard_stop_cents

    def automatic_retries(self, allowed: int) -> int:
        """How many automatic retries (after infrastructure failures) this cell may take: none for a one-attempt case."""
        return 0 if self.case.one_attempt else allowed


class Catalog(_Frozen):
    """All suites; the single source of the cells and of the valid names for each dimension."""

    suites: tuple[Suite, ...]

    @model_validator(mode="after")
    def _names_are_unambiguous(self) -> Catalog:
        # One name must mean one definition everywhere, or a selector would be ambiguous.
        for dimension in ("profiles", "environments", "cases"):
            seen: dict[str, BaseModel] = {}
            for suite in self.suites:
                for member in getattr(suite, dimension):
                    if seen.setdefault(member.name, member) != member:
                        raise ValueError(f"{dimension}: two different definitions named {member.name}")
        names = [s.name for s in self.suites]
        if len(names) != len(set(names)):
            raise ValueError(f"duplicate suite names in {names}")
        return self

    def cells(self) -> list[Cell]:
        """Every cell, sorted by execution ID."""
        cells = [
            Cell(suite=suite, profile=profile, environment=environment, case=case)
            for suite in self.suites
            for profile, environment, case in itertools.product(suite.profiles, suite.environments, suite.cases)
            if not profile.only_cases or case.name in profile.only_cases
        ]
        return sorted(cells, key=lambda cell: cell.execution_id)

    def names(self, dimension: str) -> list[str]:
        """Sorted valid names of one dimension: ``suites``, ``profiles``, ``environments`` or ``cases``."""
        if dimension == "suites":
            return sorted(s.name for s in self.suites)
        return sorted({member.name for suite in self.suites for member in getattr(suite, dimension)})


SCRIPTED = Profile(
    name="scripted",
    adapter="scripted",
    model="default",
    live=False,
    evidence_mode="scripted",
    description="The testbed's deterministic, free agent: proves product and harness paths, not model quality.",
)


def live_profile(
    name: str, cli: str, model: str, key: str, description: str, only_cases: tuple[str, ...] = ()
) -> Profile:
    """A real agent CLI with a real model, through the metering proxy to the provider: paid, manual-only."""
    return Profile(
        name=name,
        adapter=cli,
        model=model,
        live=True,
        evidence_mode="live",
        required_env=(key,),
        required_binary=cli,
        model_server="provider",
        agent_cli=cli,
        only_cases=only_cases,
        description=description,
    )


RUNNER_CODEX = live_profile(
    "runner-codex",
    "codex",
    "gpt-5-codex",
    "OPENAI_API_KEY",
    "The Codex command-line agent (gpt-5-codex) through the metering proxy to the real provider.",
)
# Same adapter, binary and credentials as runner-codex; only the model differs.
RUNNER_CODEX_MINI = live_profile(
    "runner-codex-mini",
    "codex",
    "gpt-5-mini",
    "OPENAI_API_KEY",
    "The Codex command-line agent with a smaller model (gpt-5-mini).",
)
RUNNER_CLAUDE = live_profile(
    "runner-claude",
    "claude",
    "claude-sonnet-4-5",
    "ANTHROPIC_API_KEY",
    "Claude Code (claude-sonnet-4-5) through the metering proxy to the real provider.",
)
RUNNER_OPENCODE = live_profile(
    "runner-opencode",
    "opencode",
    "gpt-5-mini",
    "OPENAI_API_KEY",
    "OpenCode (gpt-5-mini over Chat Completions) through the metering proxy; delegation and hiring only.",
    only_cases=("delegate-feedback", "hire-reuse"),
)


def replay_profile(cli: str, model: str) -> Profile:
    """A real agent CLI against the local model replay: free, deterministic, evidence mode scripted."""
    return Profile(
        name=f"replay-{cli}",
        adapter=cli,
        model=model,
        live=False,
        evidence_mode="scripted",
        model_server="replay",
        agent_cli=cli,
        description=f"The real {cli} CLI, its MCP tools and the metering proxy, against the local model replay (free).",
    )


REPLAY_PROFILES = (
    replay_profile("codex", "gpt-5-codex"),
    replay_profile("claude", "claude-sonnet-4-5"),
    replay_profile("opencode", "gpt-5-mini"),
)

LOCAL = Environment(name="local", description="Runners are processes on this machine, spawned by the testbed.")
PAPERCLIP_LOCAL = Environment(
    name="paperclip-local",
    product="paperclip",
    # Creating an issue in the UI, typing in its composer and a full-page screenshot take 2-16 s here on a loaded
    # machine (well under a second on the testbed): at 0.3 s a step the agent delivered before the late message or
    # the Stop could land (runs of 2026-11-30, premise missed). At 5x (a 15 s think after saving the source) a
    # delegation at load 11 still missed it: opening the child issue took 19 s and sending the message 8 s, 28 s
    # after the save, while the run ended 24 s after it. 15x gives a 45 s think and about 63 s from the save to the
    # run's end, twice what the person needed there; the deadline grows with it (the agent thinks again after the
    # late message).
    fault_window_scale=15.0,
    shown_wait_s=30.0,
    scripted_deadline_scale=3.0,
    description="The real Paperclip (pinned npm release) on this machine; its process adapter runs the scripted agent.",
)

CASES: tuple[Case, ...] = (
    Case(
        name="build-revise",
        story="stories.build_revise",
        scripted_deadline_s=120,
        description="Build a tool, grade the ZIP, ask for a revision, grade the second ZIP.",
    ),
    Case.delegation(
        name="delegate-feedback",
        story="stories.delegate_feedback",
        scripted_deadline_s=120,
        scripted_pace_s=0.3,
        description="A teammate builds through a child task; late feedback in the child's composer is consumed once.",
    ),
    Case(
        name="recover-controller",
        story="stories.recover_controller",
        scripted_deadline_s=180,
        scripted_pace_s=0.3,
        description="The controller restarts (SIGTERM) mid-run; the runner survives and the task still finishes.",
    ),
    Case(
        name="recover-controller-sigkill",
        story="stories.recover_controller_sigkill",
        scripted_deadline_s=180,
        scripted_pace_s=0.3,
        description="The controller is killed (SIGKILL) mid-run and started again; the runner survives.",
    ),
    Case(
        name="stop-redirect",
        story="stories.stop_redirect",
        scripted_deadline_s=120,
        scripted_pace_s=0.3,
        description="The user presses Stop and redirects the agent to a short reply; nothing writes after Stop.",
    ),
)

# The decision stories need a product with installed services and decisions (the testbed's driver today).
DECISION_CASES: tuple[Case, ...] = (
    Case(
        name="service-approve",
        story="stories.service_approve",
        scripted_deadline_s=90,
        description="Approve an agent's protected service action: no call before, exactly one after, its document reported.",
    ),
    Case(
        name="service-decline",
        story="stories.service_decline",
        scripted_deadline_s=90,
        description="Decline an agent's protected service action: no call at all, no repeated request, an explanation.",
    ),
    Case(
        name="connection-decline",
        story="stories.connection_decline",
        scripted_deadline_s=90,
        description="Not now on an agent's request to connect Notion: saved, no connection, asked once, explained.",
    ),
    Case(
        name="agentmail-setup",
        story="stories.agentmail_setup",
        scripted_deadline_s=90,
        description="Chat connectors on, an email address asked for: one durable AgentMail card, declined, nothing made.",
    ),
)

# The provider stories need a product with a provider catalog and provider questions (the testbed's driver today).
# Each expects two runs of the lead (it asks and ends its run; the person's answer starts the next) and bounds the
# attempt there; the question waits across a controller restart, so the scripted deadline allows for one.
PROVIDER_RUNS = 2
PROVIDER_CASES: tuple[Case, ...] = (
    Case(
        name="provider-native",
        story="stories.provider_native",
        scripted_deadline_s=90,
        max_run_records=PROVIDER_RUNS,
        description="Jira has a native connector: its card directly, no provider question; Not now, nothing made.",
    ),
    Case(
        name="provider-decline",
        story="stories.provider_decline",
        scripted_deadline_s=120,
        max_run_records=PROVIDER_RUNS,
        description="HubSpot only through aggregators: one disclosed question, kept across a restart; None, nothing made up.",
    ),
    Case(
        name="provider-second",
        story="stories.provider_second",
        scripted_deadline_s=120,
        max_run_records=PROVIDER_RUNS,
        description="Arcade chosen after a restart: no gateway call before, one after, its fresh marker reported.",
    ),
)

# Cases only the testbed's driver wires so far (services, connections and decisions; provider questions; the hire
# form and its bindings; the skill library and Studio): paid, scripted and replay cells on the testbed, none on Paperclip (its
# driver raises NotImplementedError naming the story).
TESTBED_CASES: tuple[Case, ...] = (
    DECISION_CASES
    + PROVIDER_CASES
    + (
        Case.delegation(
            name="hire-reuse",
            story="stories.hire_reuse",
            scripted_deadline_s=150,
            # Four CLI runs in two delegations (a lead and Morgan each time): OpenCode took 5 min at a load of 3 cells.
            replay_deadline_s=2 * REPLAY_DEADLINE_S,
            description="Hire Morgan (QA) through the hire form like the lead; Morgan delivers the tool, then its test suite.",
        ),
        Case(
            name="create-skill-studio",
            story="stories.create_skill_studio",
            scripted_deadline_s=120,
            description="The lead creates a company skill; opened from its card and the task's sidebar, it is edited in Studio.",
        ),
    )
)

MANUAL_SUITE = "everyday-workflows"
SCRIPTED_SUITE = "everyday-workflows-scripted"
REPLAY_SUITE = "everyday-workflows-replay"
# The cases the replay profiles are proven on so far (the rest of issue 12 adds the fault stories).
REPLAY_CASES = (
    "build-revise",
    "delegate-feedback",
    "recover-controller",
    "stop-redirect",
    "service-approve",
    "service-decline",
    "connection-decline",
    "agentmail-setup",
    "hire-reuse",
    "create-skill-studio",
)
PAPERCLIP_SUITE = "everyday-workflows-paperclip"
PAPERCLIP_REPLAY_SUITE = "everyday-workflows-paperclip-replay"
# Real CLIs on Paperclip's own local adapters, pointed at the replay server (issue 10): codex_local and claude_local
# (Paperclip's opencode_local is not wired).
PAPERCLIP_REPLAY_PROFILES = tuple(profile for profile in REPLAY_PROFILES if profile.agent_cli in ("codex", "claude"))
# Paperclip's replay cells: build-revise so far. The fault stories' cells are wired (the tool server beside a CLI
# keeps its write receipts, budgets go through Paperclip's budgets routes, the replay's pace and the deadline scale
# with the environment) but have no stable verdict yet (runs of 2026-11-30 at load 20-26): Paperclip's UI missed
# 5 s waits (expect.task-page-shown, infrastructure_failed on a page heading), and claude runs ended before the
# fault (unexercised): Claude Code refuses a long foreground sleep, the replay's paced pause. delegate-feedback cannot be judged with the replay: it decides to delegate
# from the testbed's briefing ("Your task #N ... Your teammates"), and Paperclip's wake prompt does not carry the
# issue's text, so the "model" built the tool itself (expect.child-task-created, a verdict on our replay).
PAPERCLIP_REPLAY_CASES = ("build-revise",)
# What the stories found in Paperclip 2026.824.1 (README, "What the stories find in Paperclip"): each cell fails
# under these checks on every run; a race inside Paperclip decides the may-also ones.
PAPERCLIP_FINDINGS = (
    KnownFinding(
        case="delegate-feedback",
        checks=("lifecycle.messages-handed-once",),
        what="the teammate's running run read the late comment, then Paperclip woke a second run for it",
    ),
    KnownFinding(
        case="recover-controller",
        checks=(
            "restart.runner-kept-going",
            "restart.same-run",
            "restart.message-survived",
            "restart.message-received",
        ),
        may_also_fail=(
            "lifecycle.tasks-done",
            "lifecycle.settled",
            "lifecycle.runner-identity",
            "lifecycle.runs-succeeded",
            "lifecycle.within-budget",
            "lifecycle.within-time-limit",
            "lifecycle.bounded-runs",
            "lifecycle.parent-owned-by-lead",
            "lifecycle.messages-stored-once",
            "lifecycle.messages-consumed",
            "lifecycle.messages-handed-once",
            "lifecycle.no-pending-bookkeeping",
            "lifecycle.parent-after-child",
        ),
        what="its shutdown ends the process adapter's runner; the run is recorded succeeded or failed by a race",
    ),
    KnownFinding(
        case="recover-controller-sigkill",
        checks=("restart.same-run", "restart.message-received", "lifecycle.runs-succeeded"),
        may_also_fail=("restart.records-once",),
        what="the new server reaps the live run process_lost and a new run redoes the work",
    ),
    KnownFinding(
        case="stop-redirect",
        checks=("stop.process-group-gone",),
        may_also_fail=(
            "stop.run-cancelled",
            "stop.workspace-unchanged",
            "stop.nothing-ran-after-stop",
            "stop.request-stored-once",
            "stop.no-earlier-run-active",
            "stop.reply-has-nonce",
            "lifecycle.messages-handed-once",
        ),
        what="within a second of Cancel it starts a run that carries on the stopped work",
    ),
)

CATALOG = Catalog(
    suites=(
        Suite(
            name=MANUAL_SUITE,
            manual_only=True,
            description="Everyday workflows with real (paid) agents; runs only when named explicitly.",
            profiles=(RUNNER_CODEX, RUNNER_CLAUDE, RUNNER_CODEX_MINI, RUNNER_OPENCODE),
            environments=(LOCAL,),
            cases=CASES + TESTBED_CASES,
        ),
        Suite(
            name=SCRIPTED_SUITE,
            manual_only=False,
            description="The same everyday workflows with the free scripted agent.",
            profiles=(SCRIPTED,),
            environments=(LOCAL,),
            cases=CASES + TESTBED_CASES,
        ),
        Suite(
            name=REPLAY_SUITE,
            manual_only=False,
            description="Real agent CLIs against the local model replay (free): proves the adapter and product paths, never a model.",
            profiles=REPLAY_PROFILES,
            environments=(LOCAL,),
            cases=tuple(case for case in CASES + TESTBED_CASES if case.name in REPLAY_CASES),
        ),
        Suite(
            name=PAPERCLIP_SUITE,
            # Free, so part of --all (issue 10): its fault cells give the same named verdict on a quiet and a busy
            # machine (README, "Running the stories against Paperclip"), declared as its known findings; Paperclip missing
            # fails them, never skips.
            manual_only=False,
            description="The same everyday workflows against the real Paperclip, with the free scripted agent.",
            profiles=(SCRIPTED,),
            environments=(PAPERCLIP_LOCAL,),
            cases=CASES,
            known_findings=PAPERCLIP_FINDINGS,
        ),
        Suite(
            name=PAPERCLIP_REPLAY_SUITE,
            manual_only=False,
            description="Real agent CLIs on Paperclip's own local adapters against the local model replay (free):"
            " proves the adapters, our tools on Paperclip's API and Paperclip, never a model.",
            profiles=PAPERCLIP_REPLAY_PROFILES,
            environments=(PAPERCLIP_LOCAL,),
            cases=tuple(case for case in CASES if case.name in PAPERCLIP_REPLAY_CASES),
        ),
    )
)


def suite_definition_hash(suite: Suite) -> str:
    """sha256 of the suite's canonical JSON, so attempts record exactly which definition they ran.

    Every member (profiles, environments, cases with their deadlines) is part of
    the suite model, so changing any of them changes the hash; key order and
    whitespace never do.
    """
    canonical = json.dumps(suite.model_dump(mode="json"), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def installed_agent_cli(name: str) -> str | None:
    """Where an agent CLI is: the project's pinned install (``make agents``), else PATH."""
    from testbed.adapters.agent_clis import PACKAGES, MissingCli, locate

    if name in PACKAGES:
        try:
            return str(locate(name))  # type: ignore[arg-type]
        except MissingCli:
            return None
    return shutil.which(name)


def live_cell_unavailable_reason(
    cell: Cell,
    env: Mapping[str, str] = os.environ,
    which: Callable[[str], str | None] = installed_agent_cli,
) -> str | None:
    """Why a live cell must be reported ``skipped`` instead of run; None when it can run.

    A live cell without its credentials or binary must never fall back to a
    default agent, and never count as passed. The reason names what is missing,
    never a value.
    """
    if not cell.profile.live:
        return None
    missing: list[str] = []
    absent_env = [name for name in cell.profile.required_env if not env.get(name)]
    if absent_env:
        missing.append(f"environment variable(s) {', '.join(absent_env)} not set")
    binary = cell.profile.required_binary
    if binary and which(binary) is None:
        missing.append(f"agent CLI '{binary}' not installed (run `make agents`)")
    if not missing:
        return None
    return f"profile {cell.profile.name} cannot run: {'; '.join(missing)}"
