"""The built-in ``model`` judge: one model call per criterion, over an OpenAI-compatible or Anthropic endpoint.

Configured by ``harness judge`` flags and ``EVERYDAY_JUDGE_*`` variables
(:mod:`.settings`); the call goes through httpx (:mod:`.transport`, which says
why not the SDKs). Every call is kept in the result whole: protocol, endpoint
(without credentials), model, prompt digest, the raw reply verbatim, usage and
cost. A transport failure or a reply without a strict final verdict is an
instrument failure (status ``error``), re-judgeable and never the agent's.
"""

from __future__ import annotations

from pathlib import Path

from harness.agents.metering.prices import ModelPrice, UnpricedModel, price_table
from harness.agents.metering.usage import Usage as PricedUsage
from harness.judges.cache import CachedReply, ReplyCache, ReplyKey
from harness.judges.digests import digest_json, digest_text
from harness.judges.models import JudgeRequest, JudgeResult, JudgeStatus, ModelCall
from harness.judges.prompt import SYSTEM, TEMPLATE_DIGEST, Unparseable, parse, render
from harness.judges.settings import JudgeSettings
from harness.judges.transport import TransportError, complete, public_endpoint


class JudgeBudgetReached(RuntimeError):
    """The judge's own spend reached its cap: nothing more is asked of a model (not a verdict on anyone)."""


class ModelJudge:
    """A model reads the criterion and the escaped evidence and ends its reply with a strict verdict line."""

    name = "model"
    version = "1"
    description = "a model over an OpenAI-compatible or Anthropic endpoint (--judge-endpoint, --judge-model)"

    def __init__(self, settings: JudgeSettings) -> None:
        self.settings = settings
        self.cache = ReplyCache(settings.cache) if settings.cache else None
        self.spent_cents = 0.0  # real spend, capped by the budget
        self.scripted_cents = 0.0  # what the replay's scripted replies would have cost: never spent, never capped
        self.model_calls_made = 0
        self.cache_hits = 0

    def judge(self, request: JudgeRequest, package: Path) -> JudgeResult:
        model = self.settings.model or ""
        base: dict[str, object] = {
            "judge": self.name,
            "judge_version": self.version,
            "criterion_id": request.criterion_id,
            "judge_model": model or None,
            "same_model_as_agent": bool(model and request.agent_model and model == request.agent_model),
            "request_digest": digest_json(request),
        }
        if gaps := self._gaps(request):
            return JudgeResult.model_validate(
                base
                | {"status": JudgeStatus.INCONCLUSIVE, "reason": "the evidence cannot decide it", "evidence_gaps": gaps}
            )
        prompt = render(request)
        key = ReplyKey(
            request_digest=digest_json(request),
            rubric_digest=request.rubric_digest,
            prompt_template_digest=TEMPLATE_DIGEST,
            judge=self.name,
            judge_version=self.version,
            model=model,
            endpoint=public_endpoint(self.settings.endpoint or ""),
            parameters=self.settings.parameters(),
        )
        try:
            reply = self._reply(key, prompt)
        except TransportError as error:
            return JudgeResult.model_validate(base | {"status": JudgeStatus.ERROR, "reason": f"transport: {error}"})
        call = ModelCall(
            protocol=reply.protocol,
            endpoint=key.endpoint,
            model=model,
            prompt_digest=digest_text(SYSTEM + "\x00" + prompt),
            raw_reply=reply.raw_reply,
            usage=reply.usage,
            cost_cents=self._cents(reply),
            scripted=reply.scripted,
        )
        base |= {"model_calls": [call]}
        if reply.ended == "refused":
            return JudgeResult.model_validate(
                base | {"status": JudgeStatus.INCONCLUSIVE, "reason": "the judge model refused to judge"}
            )
        try:
            parsed = parse(reply.raw_reply, {e.path for e in request.evidence})
        except Unparseable as error:
            return JudgeResult.model_validate(base | {"status": JudgeStatus.ERROR, "reason": f"unparseable: {error}"})
        return JudgeResult.model_validate(
            base | {"status": parsed.status, "reason": parsed.reason, "findings": parsed.findings}
        )

    def _gaps(self, request: JudgeRequest) -> list[str]:
        gaps = list(request.missing)
        if not request.agent_texts():
            gaps.append("no agent text in the evidence")
        limit = self.settings.max_evidence_chars
        gaps += [
            f"{e.path}: {len(e.text)} characters, over {limit}: too large to judge whole"
            for e in request.excerpts
            if len(e.text) > limit
        ]
        return gaps

    def _reply(self, key: ReplyKey, prompt: str) -> CachedReply:
        if self.cache and (cached := self.cache.get(key)):
            self.cache_hits += 1
            return cached
        budget = self.settings.budget_cents
        if budget is not None and self.spent_cents >= budget:
            raise JudgeBudgetReached(f"the judges' budget of {budget} cents is spent ({self.spent_cents:.2f})")
        if budget is not None and self._price() is None:
            raise JudgeBudgetReached(f"{self.settings.model} has no price in the table: a budget cannot be enforced")
        completion = complete(self.settings, SYSTEM, prompt)
        reply = CachedReply(
            key=key,
            protocol=self.settings.protocol,
            raw_reply=completion.text,
            ended=completion.ended,
            usage=completion.usage,
            scripted=completion.scripted,
        )
        self.model_calls_made += 1
        if reply.scripted:
            self.scripted_cents += self._cents(reply) or 0.0
        else:
            self.spent_cents += self._cents(reply) or 0.0
        if self.cache:
            self.cache.put(reply)
        return reply

    def _price(self) -> ModelPrice | None:
        provider = "anthropic" if self.settings.protocol == "anthropic" else "openai"
        try:
            return price_table().price(provider, self.settings.model or "")
        except UnpricedModel:
            return None

    def _cents(self, reply: CachedReply) -> float | None:
        price = self._price()
        usage = PricedUsage(input_tokens=reply.usage.input_tokens, output_tokens=reply.usage.output_tokens)
        return None if price is None else round(price.cents(usage), 6)


def make(settings: JudgeSettings) -> ModelJudge:
    """The door's factory: the model judge needs its endpoint."""
    return ModelJudge(settings)


make.description = ModelJudge.description  # type: ignore[attr-defined]
