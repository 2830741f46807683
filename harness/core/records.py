"""The attempt record (attempt.json) and its parts.

Every field a reviewer or a later tool reads crosses a boundary, so each is a
pydantic model with a schema version; readers reject what they do not know.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import Enum
from typing import Any

from pydantic import BaseModel, Field

from harness.core.verdicts import EvidenceMode, Verdict

ATTEMPT_SCHEMA_VERSION = 1


def utc_now() -> datetime:
    return datetime.now(UTC)


HARNESS_NEVER_LOOKED = "the harness never looked"


class CheckRecord(BaseModel):
    """One named requirement, its outcome and what it was decided on.

    A check whose fact neither the product exposes nor the harness can observe
    itself is *not observable*: it carries the reason in ``unobservable``, is
    never ``passed`` (no evidence, no pass) and never fails the attempt.
    """

    id: str
    passed: bool
    detail: str = ""
    evidence: list[str] = Field(default_factory=list, description="package-relative paths or record ids")
    promise: str | None = Field(
        None,
        description="the product's documented promise this check holds it to (its id in the driver's promises);"
        " None: a requirement of the story itself",
    )
    unobservable: str | None = Field(
        None, description="why this check's fact could not be observed (on this product); None when it was decided"
    )

    @classmethod
    def not_observable(cls, check_id: str, reason: str, evidence: list[str] | None = None) -> CheckRecord:
        """A check nobody could decide: recorded with its reason, neither a pass nor a failure."""
        return cls(
            id=check_id, passed=False, detail=f"not observable: {reason}", unobservable=reason, evidence=evidence or []
        )

    @classmethod
    def unseen_by_harness(cls, check_id: str, reason: str) -> CheckRecord:
        """Not observable because the harness itself never looked (a story that never waited gives the invariant
        watch no sample): it says nothing of the product's data, so a fact the product declared is not missing."""
        return cls.not_observable(check_id, f"{HARNESS_NEVER_LOOKED}: {reason}")

    @property
    def harness_never_looked(self) -> bool:
        return (self.unobservable or "").startswith(f"{HARNESS_NEVER_LOOKED}: ")

    @property
    def failed(self) -> bool:
        """Decided, and not met: the only checks that fail an attempt or name a finding."""
        return not self.passed and self.unobservable is None


class TimelineEvent(BaseModel):
    """One moment of the attempt on the harness's clock; ``kind`` places it in a lane of the reviewer's timeline."""

    at: datetime = Field(default_factory=utc_now)
    step: str
    detail: str = ""
    kind: str | None = Field(None, description="check, fault, screenshot or download; None: a step of the story")
    until: datetime | None = Field(None, description="when an event that lasts (a fault being injected) ended")


class RecoveryKind(str, Enum):
    """The harness's own infrastructure it may recover during an attempt; a story's deliberate fault is none of these."""

    BROWSER_RELAUNCHED = "browser-relaunched"
    ATTEMPT_RETRIED = "attempt-retried"


class Recovery(BaseModel):
    """One recovery of the harness's own infrastructure: what failed, what the harness did, and when.

    Only the harness records these (never a story or a fault module), so a
    story that restarts the product on purpose leaves none.
    """

    kind: RecoveryKind
    detail: str
    at: datetime = Field(default_factory=utc_now)


class Timing(BaseModel):
    started_at: datetime
    ended_at: datetime | None = None
    wall_s: float | None = None
    agent_run_s: float | None = Field(
        None, description="seconds during which at least one of the product's runs was active"
    )
    harness_overhead_s: float | None = None
    deadline_s: float
    phases: dict[str, float] = Field(
        default_factory=dict,
        description="seconds the harness spent in each of its own phases (product start, browser, screenshots, oracle, ...)",
    )


class Accounting(BaseModel):
    """Real cents only in ``cost_cents``; what replay calls would have cost stays apart, never added in."""

    cost_cents: int = 0
    run_count: int = 0
    model_calls: int = 0
    simulated_cost_cents: float = 0.0
    refused_model_calls: int = Field(0, description="calls the metering proxy refused at a hard stop")
    agent_reported_cost_usd: float | None = Field(
        None,
        description="what the agent CLIs themselves reported the runs cost (Claude Code's total_cost_usd), beside"
        " the metering proxy's figures for comparison; never added to cost_cents (None: no CLI reported one)",
    )
    replay_model_calls: int | None = Field(
        None,
        description="model calls the replay server (or a cassette) answered: equal to model_calls when nothing got"
        " past the metering proxy",
    )
    cost_recorded: bool = Field(
        False,
        description="a cassette answered the calls: the costs are what they cost when recorded; nothing was spent",
    )


class Provenance(BaseModel):
    source_revision: str
    source_dirty: bool
    harness_digest: str
    suite_definition_hash: str
    oracle_image: str | None = None
    evidence_mode: EvidenceMode
    # The product the cell ran against, as installed (older records have neither).
    product: str | None = None
    product_version: str | None = None
    agent_clis: dict[str, str] = {}  # CLI name -> "package@version" of every agent CLI the cell ran
    node: str | None = None  # the cluster node that played the attempt (--engine ray); none on the local engine


class DownloadRecord(BaseModel):
    phase: str
    path: str
    sha256: str
    size: int
    oracle_mode: str | None = None
    oracle_passed: bool | None = None
    oracle_result: str | None = None


class CellIdentity(BaseModel):
    execution_id: str
    suite: str
    profile: str
    environment: str
    case: str


class PairMark(BaseModel):
    """This attempt's half of a pair made by design: the same slot played once per variant, back to back.

    Only attempts carrying the same ``id`` are ever compared as a pair; two
    campaigns run apart have none, so nothing can pair them by position.
    """

    id: str
    variant: str = Field(
        description="the variant as --pair named it: `product-defect=download-other-bytes`, or `product-defect=` unset"
    )
    setting: str = Field(description="the run setting the variants differ in (a RunSettings field name)")
    first: bool = Field(description="the base variant of the pair (named first in --pair), played first")


class Outcome(BaseModel):
    """How the story ended before its checks were counted, and what the secret scan found: the verdict's inputs
    besides the checks (:func:`harness.judging.verdict.verdict_of`)."""

    verdict: Verdict
    reason: str = ""
    secret_found: str | None = Field(None, description="the secret scan's finding: the attempt fails whatever else")


class AttemptRecord(BaseModel):
    schema_version: int = ATTEMPT_SCHEMA_VERSION
    campaign: str
    attempt: str
    cell: CellIdentity
    verdict: Verdict
    reason: str = ""
    retry_of: str | None = None
    supersedes: str | None = Field(
        None,
        description="the attempt of this slot that a resume played again (`--rerun`): it stays on disk, no longer"
        " counted",
    )
    pair: PairMark | None = None
    interrupted: bool = Field(
        False,
        description="a Ctrl-C (or kill) cut the attempt short: its verdict is not the cell's result, and a resume"
        " runs it again",
    )
    checks: list[CheckRecord] = Field(default_factory=list)
    recoveries: list[Recovery] = Field(
        default_factory=list,
        description="every recovery of the harness's own infrastructure during the attempt; a pass with any is"
        " passed_with_recovery (a verdict input besides the checks, as the outcome is)",
    )
    outcome: Outcome | None = Field(
        None, description="the verdict's inputs besides the checks, so the verdict can be derived again (regrade)"
    )
    timeline: list[TimelineEvent] = Field(default_factory=list)
    timing: Timing
    accounting: Accounting = Field(default_factory=Accounting)
    provenance: Provenance
    downloads: list[DownloadRecord] = Field(default_factory=list)
    screenshots: list[str] = Field(default_factory=list)
    extra: dict[str, Any] = Field(default_factory=dict)

    def failed_check_ids(self) -> list[str]:
        """The ids of the checks that failed, in the order they were decided."""
        return [check.id for check in self.checks if check.failed]
