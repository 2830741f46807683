"""The catalog's schema: suites, profiles, environments, cases, products, and the cells they make.

A *cell* is suite x profile x environment x case; its execution ID
``<suite>.<profile>.<environment>.<case>`` is what users type, what results are
filed under and what shards split. The members come in through doors
(:mod:`harness.core.registry`): each story module declares its ``CASE``, each
product package its ``PRODUCT`` (environments, suites, capabilities, the facts
it exposes, its documented promises and its known findings); the agent
profiles are declared below. A cell exists only where its product has what its
story needs; elsewhere it is listed as not applicable, with the reason.

Paid (live) profiles live only in manual-only suites, so ``--all`` never spends
money.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from fnmatch import fnmatchcase
from functools import cached_property
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field, field_validator, model_validator

from harness.core.criteria import Criterion
from harness.core.observable import FACTS, Fact, unobservable_reason
from harness.core.prompt_formats import PromptFormat
from harness.core.records import CheckRecord
from harness.core.signatures import FailureSignature, unmatched
from harness.core.verdicts import EvidenceMode

# Dots separate the parts of an execution ID, so no name may contain one.
NAME_PATTERN = r"[a-z0-9][a-z0-9-]*"
Name = Annotated[str, Field(pattern=rf"^{NAME_PATTERN}$")]
# suite.profile.environment.case
EXECUTION_ID = re.compile(rf"{NAME_PATTERN}(\.{NAME_PATTERN}){{3}}")

LIVE_DEADLINE_S = 12 * 60
REPLAY_DEADLINE_S = 5 * 60
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
    """Where the runner executes (``local``: a process beside the controller; ``container``: a sandbox) and which
    product it serves.

    ``product`` names the driver package under ``harness.products`` that a
    cell of this environment starts and drives.
    """

    name: Name
    product: Name = "testbed"
    sandbox: Literal["process", "container"] = Field(
        default="process",
        description="where the product starts each runner: a process on this machine, or its own container through"
        " the Docker engine (the driver is asked for that sandbox when it starts an instance)",
    )
    only_cells: tuple[str, ...] = Field(
        default=(), description="when set, the only ``<profile>.<case>`` cells (shell patterns) made here"
    )
    only_why: str = Field(default="", description="why the environment makes only those cells")
    hides: tuple[Fact, ...] = Field(
        default=(),
        description="facts the product exposes elsewhere that its runners here cannot give (a sandbox has no place in"
        " this machine's process table): checks on them are not observable here",
    )
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
        " show it. The testbed's pages refresh live; a product whose pages are slower declares more",
    )
    scheduler_tick_s: float = Field(
        default=0.0,
        ge=0,
        description="seconds between the product's scheduler ticks, where it takes up some work only at a tick (a"
        " resumed agent's next run): a step waiting for such work waits that much longer than shown_wait_s",
    )
    scripted_deadline_scale: float = Field(
        default=1.0,
        ge=1.0,
        description="how many times a case's scripted deadline a cell may take here: the slower agent of"
        " fault_window_scale thinks longer, and once more for each late message it rebuilds for",
    )
    done_statuses: tuple[Literal["done", "in_review"], ...] = Field(
        default=("done",),
        min_length=1,
        description="the statuses in which a task's work is over for its agent (lifecycle.tasks-done): a product"
        " whose agents hand their work to a person for review and merge ends it in_review",
    )
    description: str = ""


class Case(_Frozen):
    """One story, what it needs from a product, and the bounds an attempt of it must stay within.

    A story module declares its case as ``CASE``; the registry fills ``story``
    with the module's name when it is left empty.
    """

    name: Name
    story: str = Field(default="", description="importable module of the story, e.g. stories.build_revise")
    needs: tuple[str, ...] = Field(
        default=(), description="capabilities a product must declare for this story's cells to exist there"
    )
    replay: bool = Field(
        default=True, description="the model replay scripts this story, so the replay profiles make cells for it"
    )
    products: tuple[str, ...] = Field(
        default=(), description="the products the story is written for (empty: every product with what it needs)"
    )
    scripted_deadline_s: int = Field(gt=0)
    live_deadline_s: int = Field(default=LIVE_DEADLINE_S, gt=0)
    replay_deadline_s: int = Field(
        default=REPLAY_DEADLINE_S,
        gt=0,
        description="a real CLI against the replay: it starts slowly, once per run (a story with more runs needs more)",
    )
    max_run_records: int | None = Field(
        default=None,
        gt=0,
        description="the most runs an attempt may make; None: the bound the story's own script asks for, two runs for"
        " each thing asked of the agents (a task, a message the person sent, the interruption the story caused):"
        " the work and one follow-up (a child's result, a recovery)",
    )
    scripted_pace_s: float | None = Field(
        default=None,
        gt=0,
        description="scripted agent seconds per step; a fault needs a window to land in, the invariant watch a run"
        " at work to look at",
    )
    hard_stop_cents: int | None = Field(
        default=None,
        ge=0,
        description="the company's and the lead agent's budget for cells that call a model (None: the product's own)",
    )
    one_attempt: bool = Field(
        default=False, description="never retried automatically: a second paid attempt doubles the spend"
    )
    criteria: tuple[Criterion, ...] = Field(
        default=(),
        description="judged criteria beside the checks: decided by a judge over the saved package (harness judge);"
        " never judged, they read 'not judged', never a pass",
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
    non-zero, so a fix or a new defect is noticed the same day. Check ids are
    exact: a family pattern would let a new regression pass as the finding.
    """

    case: Name
    profiles: tuple[Name, ...] = Field(default=(), description="the profiles it shows on (empty: every profile)")
    checks: tuple[str, ...] = Field(min_length=1, description="checks that fail on every run")
    may_also_fail: tuple[str, ...] = Field(
        default=(), description="exact checks that a race inside the product decides, run by run"
    )
    signatures: tuple[FailureSignature, ...] = Field(
        min_length=1,
        description="what the failure looks like: at least one for each of ``checks`` (a ``may_also_fail`` check may"
        " have some); a failure of a signed check that matches none of its signatures is new, never this finding",
    )
    what: str = Field(min_length=1, description="what the product did, as the closing note and README report it")
    reproduction: str = Field(
        min_length=1,
        description="the folder, beside the product's driver, of the standalone reproduction and its bug report",
    )
    intermittent: bool = Field(
        default=False,
        description="a race inside the product decides whether an attempt shows it: a pass is then no sign of a fix"
        " (its reproduction, which forces the race, is: `make findings` fails once it no longer reproduces)",
    )

    @model_validator(mode="after")
    def _exact_check_ids(self) -> KnownFinding:
        if patterns := [c for c in (*self.checks, *self.may_also_fail) if any(ch in c for ch in "*?[")]:
            raise ValueError(f"known finding for {self.case}: check ids must be exact, not patterns: {patterns}")
        return self

    @model_validator(mode="after")
    def _signed_checks(self) -> KnownFinding:
        signed = {signature.check for signature in self.signatures}
        if unsigned := [check for check in self.checks if check not in signed]:
            raise ValueError(f"known finding for {self.case}: no signature for its check(s) {unsigned}")
        if strangers := sorted(signed - {*self.checks, *self.may_also_fail}):
            raise ValueError(f"known finding for {self.case}: signatures of checks it does not declare: {strangers}")
        return self

    def applies_to(self, case: str, profile: str) -> bool:
        return self.case == case and (not self.profiles or profile in self.profiles)

    def explains(self, failures: list[CheckRecord]) -> bool:
        """The failure is this finding: every declared check failed, nothing outside the declared set, and each
        failure of a signed check looks as its signature says."""
        failed = {failure.id for failure in failures}
        within = set(self.checks) <= failed <= {*self.checks, *self.may_also_fail}
        return within and not self.unmatched(failures)

    def unmatched(self, failures: list[CheckRecord]) -> list[CheckRecord]:
        """Failures of this finding's checks that do not look like it: a new defect on the same check."""
        return unmatched(self.signatures, failures)


class Promise(_Frozen):
    """Something a product documents it does, which a story holds it to; with where it says so."""

    id: Name
    statement: str = Field(min_length=1, description="the promise in the product's own terms")
    source: str = Field(min_length=1, description="where the product documents it: a file and function, a doc page")
    applies_to: tuple[str, ...] = Field(default=(), description="the parts it covers (adapters, ...); empty: all")

    def covers(self, part: str) -> bool:
        return not self.applies_to or part in self.applies_to


class NoCell(_Frozen):
    """Why a product gets no cell for a story it has every capability for.

    ``not-yet``: the driver or the replay does not wire the cell yet. ``not-promised``: the story's premise is a fault
    the product documents differently for that profile's agents, so a verdict would judge a promise it never made.
    """

    kind: Literal["not-yet", "not-promised"]
    why: str = Field(min_length=1)

    def reason(self, title: str) -> str:
        """The reason people read where the cell is listed as not applicable."""
        lead = f"not yet on {title}" if self.kind == "not-yet" else f"{title} does not promise it"
        return f"{lead}: {self.why}"


class ProductSuites(_Frozen):
    """The suite a product's cells go in, per kind of profile; None where the product has no such cells."""

    scripted: Name | None = None
    replay: Name | None = None
    live: Name | None = Field(default=None, description="manual-only: paid cells run only when it is named")


class ProductDeclaration(_Frozen):
    """What a product driver brings through its door: where it runs, what it can do, what it exposes, what it promises.

    ``driver`` is the import path (``module:attribute``) of its
    :class:`harness.products.base.ProductDriver`, loaded only when a cell of
    the product runs; everything here is data, so listing cells starts nothing.
    """

    name: Name
    title: str = Field(min_length=1, description="the product's name as people write it")
    driver: str = Field(pattern=r"^[\w.]+:\w+$")
    environments: tuple[Environment, ...] = Field(min_length=1)
    suites: ProductSuites
    replay_clis: tuple[str, ...] = Field(default=(), description="agent CLIs the product runs against the replay")
    capabilities: tuple[str, ...] = Field(default=(), description="what its driver can do for a story")
    lacks: dict[str, str] = Field(
        default_factory=dict, description="capabilities it does not have, each with the reason people read"
    )
    observes: tuple[Fact, ...] = Field(default=(), description="facts the product exposes to the harness")
    observes_with: dict[str, tuple[Fact, ...]] = Field(
        default_factory=dict,
        description="facts it exposes only with some agents, by profile name (a shell pattern): a fact the agent"
        " itself writes into the product's records (its read steps, say), which another agent does not",
    )
    derives: dict[Fact, str] = Field(
        default_factory=dict,
        description="facts the product does not expose that its driver works out from other records, each with how"
        " (kept in each package as provenance ``derived``, never as the product's word)",
    )
    promises: tuple[Promise, ...] = ()
    known_findings: tuple[KnownFinding, ...] = ()
    defects: tuple[str, ...] = Field(
        default=(),
        description="product defects its driver can switch on for calibration (only a product of ours has any)",
    )
    volatile: tuple[str, ...] = Field(
        default=(),
        description="regular expressions for the values the product makes up that reach an agent's model calls (ids,"
        " tokens): a cassette replay compares requests without them and fits recorded answers with this run's",
    )
    no_cell: dict[str, NoCell] = Field(
        default_factory=dict,
        description="cells it has what the story needs for yet gets none of, by ``<profile>.<case>`` (a shell"
        " pattern), each with its kind and reason",
    )
    prompts: PromptFormat = Field(
        default_factory=PromptFormat, description="how it words what it hands an agent, read by the model replay"
    )

    @field_validator("capabilities", "observes", mode="after")
    @classmethod
    def _sorted(cls, names: tuple[str, ...]) -> tuple[str, ...]:
        """Sorted and unique, so the suite definition hash is the same in every process."""
        return tuple(sorted(set(names)))

    @model_validator(mode="after")
    def _consistent(self) -> ProductDeclaration:
        if both := sorted(set(self.capabilities) & set(self.lacks)):
            raise ValueError(f"product {self.name}: capabilities both declared and lacking: {both}")
        if both := sorted(set(self.observes) & set(self.derives)):
            raise ValueError(f"product {self.name}: facts both exposed and worked out by the driver: {both}")
        for finding in self.known_findings:
            for check in (*finding.checks, *finding.may_also_fail):
                if reason := unobservable_reason(check, self.observes, self.name):
                    raise ValueError(
                        f"product {self.name}: known finding for {finding.case} names {check}, which is not"
                        f" observable here ({reason})"
                    )
        return self

    def why_not(self, case: Case, profile: Profile) -> str | None:
        """Why ``case`` has no cell for ``profile`` on this product; None when it has one."""
        if case.products and self.name not in case.products:
            return f"the story is written for {', '.join(case.products)} only"
        if missing := [need for need in case.needs if need not in self.capabilities]:
            return "; ".join(
                f"{self.title} lacks {need}: {self.lacks.get(need, 'its driver does not declare it')}"
                for need in missing
            )
        cell = f"{profile.name}.{case.name}"
        return next((gap.reason(self.title) for key, gap in self.no_cell.items() if fnmatchcase(cell, key)), None)


class Suite(_Frozen):
    """A purpose, with every member spelled out so its definition hash covers all of them."""

    name: Name
    manual_only: bool
    description: str
    profiles: tuple[Profile, ...]
    environments: tuple[Environment, ...]
    cases: tuple[Case, ...]
    known_findings: tuple[KnownFinding, ...] = ()
    product: ProductDeclaration | None = Field(
        default=None, description="the product its environments run (None: a suite built by hand, all cells apply)"
    )

    @model_validator(mode="after")
    def _findings_name_its_cells(self) -> Suite:
        cases = {case.name for case in self.cases}
        named = [finding.case for finding in self.known_findings]
        if unknown := sorted(set(named) - cases):
            raise ValueError(f"suite {self.name}: known findings for cases it does not hold: {unknown}")
        for profile in self.profiles:
            for case in cases:
                if sum(finding.applies_to(case, profile.name) for finding in self.known_findings) > 1:
                    raise ValueError(f"suite {self.name}: more than one known finding for {profile.name}.{case}")
        return self

    def why_not(self, profile: Profile, case: Case, environment: Environment | None = None) -> str | None:
        """Why this suite has no cell for ``profile`` x ``case`` (on ``environment``); None when it has one."""
        cell = f"{profile.name}.{case.name}"
        if environment and environment.only_cells and not any(fnmatchcase(cell, p) for p in environment.only_cells):
            return f"the {environment.name} environment runs only {', '.join(environment.only_cells)}: {environment.only_why}"
        if profile.only_cases and case.name not in profile.only_cases:
            return f"profile {profile.name} runs only {', '.join(profile.only_cases)}"
        if self.product and (lacking := self.product.why_not(case, profile)):
            return lacking  # the product's own reason first: a script would not give it what it lacks
        if profile.model_server == "replay" and not case.replay:
            return "the model replay has no script for this story"
        return None

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
    def observes(self) -> tuple[Fact, ...]:
        """The facts this cell's product declares it exposes (with this cell's agent), less those its environment
        hides."""
        product = self.suite.product
        if product is None:
            return FACTS
        extra = [
            f for key, facts in product.observes_with.items() if fnmatchcase(self.profile.name, key) for f in facts
        ]
        return tuple(sorted({*product.observes, *extra} - set(self.environment.hides)))

    @property
    def derives(self) -> dict[Fact, str]:
        """The facts this cell's driver works out itself, each with how."""
        return dict(self.suite.product.derives) if self.suite.product else {}

    def unobservable(self, check_id: str) -> str | None:
        """Why ``check_id`` cannot be judged on this cell's product; None when every fact it needs is exposed."""
        product = self.suite.product
        if product is None:
            return None
        hidden = set(self.environment.hides) & set(product.observes)
        where = f"{product.title} ({self.environment.name})" if hidden else product.title
        return unobservable_reason(check_id, self.observes, where)

    @property
    def known_finding(self) -> KnownFinding | None:
        """The product defect this cell is declared to show, if any."""
        return next((f for f in self.suite.known_findings if f.applies_to(self.case.name, self.profile.name)), None)

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
        return [cell for cell, reason in self.combinations if reason is None]

    def not_applicable(self) -> list[tuple[Cell, str]]:
        """The combinations that make no cell, each with the reason (a product lacking what the story needs)."""
        return [(cell, reason) for cell, reason in self.combinations if reason is not None]

    @cached_property
    def combinations(self) -> tuple[tuple[Cell, str | None], ...]:
        """Every suite x profile x environment x case, sorted by execution ID, with why it makes no cell (None: it
        makes one). Made once per catalog: the catalog is frozen, and a campaign asks for its cells per package."""
        combinations = [
            (
                Cell(suite=suite, profile=profile, environment=environment, case=case),
                suite.why_not(profile, case, environment),
            )
            for suite in self.suites
            for profile, environment, case in itertools.product(suite.profiles, suite.environments, suite.cases)
        ]
        return tuple(sorted(combinations, key=lambda pair: pair[0].execution_id))

    def names(self, dimension: str) -> list[str]:
        """Sorted valid names of one dimension: ``suites``, ``profiles``, ``environments`` or ``cases``."""
        if dimension == "suites":
            return sorted(s.name for s in self.suites)
        return sorted({member.name for suite in self.suites for member in getattr(suite, dimension)})


# The default product's suites: a short ``--id`` names a case's cell in SCRIPTED_SUITE on LOCAL.
MANUAL_SUITE = "everyday-workflows"
SCRIPTED_SUITE = "everyday-workflows-scripted"
REPLAY_SUITE = "everyday-workflows-replay"
LOCAL = "local"
CONTAINER = "container"


def suite_definition_hash(suite: Suite) -> str:
    """sha256 of the suite's canonical JSON, so attempts record exactly which definition they ran.

    Every member (profiles, environments, cases with their deadlines) is part of
    the suite model, so changing any of them changes the hash; key order and
    whitespace never do.
    """
    canonical = json.dumps(suite.model_dump(mode="json"), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()
