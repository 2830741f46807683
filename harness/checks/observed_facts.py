"""Which of the facts a driver can declare an attempt's records really carry, and where each came from.

A driver declares before the run the facts its product exposes
(``ProductDeclaration.observes``), and the facts it works out itself from
other records (``ProductDeclaration.derives``). This reads the same
lifecycle facts the rules judge and says, for every fact, whether it was
declared, which records carry a value of it, and its provenance: ``product``
(the product's records, read through its public API), or ``derived`` (worked
out by the driver, naming how). Saved in the package beside the records, it
lets anyone check a driver's declaration against what it delivers: every
declared fact carried, no undeclared one carried as the product's.

Some facts show only in what a story does (the Stop's report of a process
group, a task's skills sidebar) and some in a field every task has whatever
its source (an unread counter, an active-run pointer); for those the
records alone cannot tell, and the entry says so (``carried_by`` is None).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, Field

from harness.checks.lifecycle import LifecycleFacts
from harness.core.observable import FACTS, Fact

Provenance = Literal["product", "derived"]


class ObservedFact(BaseModel):
    """One fact of the vocabulary, as this attempt's records carry it."""

    fact: Fact
    declared: bool = Field(description="the driver declared before the run that its product exposes it")
    provenance: Provenance | None = Field(None, description="where the values came from; None: no record carries one")
    source: str = Field(description="where in the package a reader finds it (or why the records cannot tell)")
    carried_by: list[str] | None = Field(
        description="the records that carry a value of it; None: the records alone cannot tell (see the module)"
    )


def _carriers(facts: LifecycleFacts) -> dict[Fact, tuple[str, Callable[[], list[str]]]]:
    """Each fact the records can show: where it is in the tasks snapshot, and the records that carry it."""
    user_messages = facts.messages
    return {
        "message-read": (
            "snapshots/tasks.json: each user message's consumed_by_run_id",
            lambda: [f"message {m.id}" for m in user_messages if m.consumed_by_run_id is not None],
        ),
        "message-wakes": (
            "snapshots/tasks.json: each user message's woke_run_ids",
            lambda: [f"message {m.id}" for m in user_messages if m.woke_run_ids],
        ),
        "runner-identity": (
            "snapshots/tasks.json: each run's identity (runner instance id, and pid with start time or a lease)",
            lambda: [f"run {r.id}" for r in facts.runs if r.has_identity],
        ),
        "receipts": (
            "snapshots/tasks.json: each run's receipts, read steps naming the messages received",
            lambda: [f"run {r.id}" for r in facts.runs if r.received_message_ids is not None],
        ),
        "run-cause": (
            "snapshots/tasks.json: each run's cause",
            lambda: [f"run {r.id}" for r in facts.runs if r.cause is not None],
        ),
    }


UNTOLD: Mapping[Fact, str] = {
    "process-group-gone": "shown only by a Stop (snapshots/stop.json: product_says_group_gone)",
    "task-skills": "shown only by a task's skills sidebar (the skill story's checks)",
    "unread-counter": "a field every task has, whoever counted it: the declaration says whether the product did",
    "active-run-pointer": "a field every task has, whoever set it: the declaration says whether the product did",
}


def observed_facts(facts: LifecycleFacts, derives: Mapping[Fact, str]) -> list[ObservedFact]:
    """Every fact of the vocabulary: declared or not (``facts.observes``), carried by which records, from where.

    ``derives``: the facts the driver works out itself, each with how.
    """
    declared = set(facts.observes or ())
    carriers = _carriers(facts)
    found = []
    for fact in FACTS:
        if fact not in carriers:
            found.append(ObservedFact(fact=fact, declared=fact in declared, source=UNTOLD[fact], carried_by=None))
            continue
        source, carried = carriers[fact]
        records = carried()
        provenance: Provenance | None = None if not records else "derived" if fact in derives else "product"
        if fact in derives:
            source = f"{source}, worked out by the driver: {derives[fact]}"
        found.append(
            ObservedFact(fact=fact, declared=fact in declared, provenance=provenance, source=source, carried_by=records)
        )
    return found


def conformance_gaps(observed: Sequence[ObservedFact], exercised: Sequence[Fact]) -> list[str]:
    """What a package shows against its driver's declaration: each declared fact among ``exercised`` (those the
    story reaches) that no record carries, and each undeclared fact carried as the product's."""
    gaps = [
        f"{o.fact} is declared, yet no record carries it ({o.source})"
        for o in observed
        if o.declared and o.fact in exercised and not o.carried_by
    ]
    gaps += [
        f"{o.fact} is not declared, yet {', '.join(o.carried_by or [])} carry it as the product's ({o.source})"
        for o in observed
        if not o.declared and o.provenance == "product"
    ]
    return gaps
