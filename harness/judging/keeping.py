"""How a judgement's checks become the checks an attempt keeps: one function, used while running and at regrade."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from harness.core.records import CheckRecord
from harness.judging.observations import Judgement, Observation

Unobservable = Callable[[str], str | None]


def observation_of(judgement: Judgement, seq: int, evidence: list[str], promise: str | None) -> Observation:
    """What the package keeps of a judgement: the rule call, or (decided) its checks as they are."""
    ids = [check.id for check in judgement.checks]
    common = {"seq": seq, "evidence": evidence, "promise": promise, "check_ids": ids, "origin": judgement.origin}
    if judgement.args is None:
        return Observation(
            kind="decided",
            rule=judgement.rule or None,
            decided=judgement.checks,
            why_decided=judgement.why_decided,
            sources=judgement.sources,
            **common,
        )
    return Observation(kind="rule", rule=judgement.rule, args=judgement.args, sources=judgement.sources, **common)


def kept_checks(
    checks: Sequence[CheckRecord], observation: Observation, unobservable: Unobservable
) -> list[CheckRecord]:
    """The checks as kept: linked to the observation's evidence, held to its promise; a check whose fact the
    product does not expose, as not observable (decided from the product's declaration, not from the data)."""
    kept: list[CheckRecord] = []
    for check in checks:
        update: dict[str, object] = {"evidence": [*check.evidence, *observation.evidence]}
        if observation.promise is not None:
            update["promise"] = observation.promise
        record = check.model_copy(update=update)
        if record.unobservable is None and (reason := unobservable(record.id)):
            record = CheckRecord.not_observable(record.id, reason, record.evidence)
        kept.append(record)
    return kept
