"""What crosses the judge door: the request a judge reads and the result it returns.

Both are pydantic models because a judge may come from an outside package: the
request says exactly what it may read (package-relative evidence with its
sha256, so a judge can verify it read the saved bytes), and the result is
validated before anything is written beside the package.
"""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, ConfigDict, Field

REQUEST_SCHEMA = "everyday-evals.judge.request.v1"
RESULT_SCHEMA = "everyday-evals.judge.result.v1"


class JudgeStatus(str, Enum):
    """A judge's answer. ``error`` is the instrument's failure (transport, unparseable reply): never the agent's."""

    PASSED = "passed"
    FAILED = "failed"
    INCONCLUSIVE = "inconclusive"
    ERROR = "error"


class EvidenceFile(BaseModel):
    """One package file a request draws on, as saved: verifiable by its digest."""

    model_config = ConfigDict(frozen=True)

    path: str
    sha256: str
    size: int


class Excerpt(BaseModel):
    """Text taken from an evidence file, inline so a judge needs no file access; agent text is marked as such."""

    model_config = ConfigDict(frozen=True)

    path: str
    field: str | None = None
    role: str
    label: str
    text: str


class JudgeRequest(BaseModel):
    """Everything one judge needs to decide one criterion of one attempt, and nothing it must not see."""

    model_config = ConfigDict(frozen=True, populate_by_name=True)

    schema_: str = Field(REQUEST_SCHEMA, alias="schema")
    attempt: str = Field(description="campaign/execution-id/attempt")
    case: str
    criterion_id: str
    criterion_text: str
    rubric_digest: str = Field(description="sha256 of the criterion's text and evidence declaration")
    evidence: tuple[EvidenceFile, ...] = ()
    excerpts: tuple[Excerpt, ...] = ()
    missing: tuple[str, ...] = Field(default=(), description="declared evidence the package does not hold")
    withheld: tuple[str, ...] = Field(
        default=(), description="what was deliberately left out (oracle internals, secrets)"
    )
    fallback: str | None = Field(None, description="the criterion's deterministic rule, for the rules judge")
    agent_model: str | None = Field(None, description="the model of the agent under test (self-preference flag)")

    def agent_texts(self) -> list[Excerpt]:
        return [e for e in self.excerpts if e.role == "agent_text"]


class Finding(BaseModel):
    """One observation a judge makes, citing the evidence it rests on."""

    text: str
    evidence: list[str] = Field(default_factory=list, description="package-relative paths")


class Usage(BaseModel):
    input_tokens: int = 0
    output_tokens: int = 0


class ModelCall(BaseModel):
    """One call a judge made to a model, kept whole: the raw reply verbatim so a fixed parser can read it again."""

    protocol: str
    endpoint: str
    model: str
    prompt_digest: str
    raw_reply: str
    usage: Usage = Field(default_factory=Usage)
    cost_cents: float | None = Field(None, description="priced from the project's price table; None: unpriced")
    scripted: bool = Field(False, description="the endpoint was the local replay: scripted evidence, never a model's")


class JudgeResult(BaseModel):
    """A judge's answer on one criterion of one attempt."""

    schema_: str = Field(RESULT_SCHEMA, alias="schema")
    judge: str
    judge_version: str
    criterion_id: str
    status: JudgeStatus
    reason: str
    findings: list[Finding] = Field(default_factory=list)
    evidence_gaps: list[str] = Field(default_factory=list)
    model_calls: list[ModelCall] = Field(default_factory=list)
    judge_model: str | None = None
    same_model_as_agent: bool = Field(
        False, description="the judge's model is the agent's: self-preference may inflate a pass"
    )
    request_digest: str = ""
    reviewer: str | None = Field(None, description="a person's override (judge ``review``): who set it")

    model_config = ConfigDict(populate_by_name=True)

    @property
    def cost_cents(self) -> float:
        return sum(call.cost_cents or 0.0 for call in self.model_calls)
