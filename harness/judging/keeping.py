"""How a judgement's checks become the checks an attempt keeps: one function, used while running and at regrade."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from harness.core.observable import CHECK_FACTS
from harness.core.records import CheckRecord
from harness.judging.observations import Judgement, Observation

Unobservable = Callable[[str], str | None]
# How a package from before the watch's samples were judged by a rule kept a check the harness never looked for.
HARNESS_UNSEEN = "the harness itself never looked (a story that never waited gives the invariant watch no sample)"


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
    return Observation(
        kind="rule",
        rule=judgement.rule,
        args=judgement.args,
        filed=judgement.filed,
        sources=judgement.sources,
        **common,
    )


def kept_checks(
    checks: Sequence[CheckRecord], observation: Observation, unobservable: Unobservable
) -> list[CheckRecord]:
    """The checks as kept: linked to the observation's evidence, held to its promise; whether one is *not
    observable* is decided from the product's declaration alone, never from the data.

    A check whose facts the product does not declare is not observable,
    whatever it found: it was decided on a value the product never gave. A
    check whose facts the product declares cannot make itself not observable
    at run time: a declared fact missing is a failure, named. The one
    exception is a check the harness itself never looked for
    (:meth:`CheckRecord.unseen_by_harness`, or kept as ``HARNESS_UNSEEN`` by
    an older harness), which says nothing of the product's data.
    """
    kept: list[CheckRecord] = []
    for check in checks:
        update: dict[str, object] = {"evidence": [*check.evidence, *observation.evidence]}
        if observation.promise is not None:
            update["promise"] = observation.promise
        record = check.model_copy(update=update)
        if reason := unobservable(record.id):
            record = CheckRecord.not_observable(record.id, reason, record.evidence)
        elif (
            record.unobservable is not None
            and observation.why_decided != HARNESS_UNSEEN
            and not record.harness_never_looked
            and (declared := CHECK_FACTS.get(record.id))
        ):
            record = CheckRecord(
                id=record.id,
                passed=False,
                detail=f"the product declared {', '.join(sorted(declared))}, yet: {record.unobservable}",
                evidence=record.evidence,
                promise=record.promise,
            )
        kept.append(record)
    return kept
