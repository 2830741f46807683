"""Which facts a check is decided on, so a check is judged only where someone can observe its fact.

A product driver declares the facts its product exposes (``ProductDeclaration.observes``).
A check listed here needs every fact it names; on a product that does not
expose one of them, and where the harness cannot observe it either, the
check is recorded *not observable on <product>* instead of passed or failed,
and no known finding may name it. That is decided before the run, from the
declaration alone (``harness list --not-observable`` shows it): a declared
fact that an attempt then lacks fails the checks that need it. A check not listed here needs only what
every driver gives (tasks, runs, messages, deliveries through the public API,
or what the harness sees itself).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, get_args

Fact = Literal[
    # The product records which run read each user message (its own word, not the agent's log).
    "message-read",
    # The product records which runs it started to hand a message over (a wake carrying it).
    "message-wakes",
    # Each run carries its runner's identity: runner instance id, pid and process start time.
    "runner-identity",
    # Each run carries the agent's tool receipts in order (what it read, saved and delivered).
    "receipts",
    # The product reports, for a stopped run, whether its process group has exited.
    "process-group-gone",
    # Each run records why it was started (an assignment, a message, a child's result, a hand-off, a recovery).
    "run-cause",
    # A task's page lists the skills its runs created or used (a skills sidebar), each opening Skill Studio.
    "task-skills",
    # Each task's own record counts the user messages no run has read yet: the product's counter, not one a driver
    # works out from the messages (a counter recomputed from them can never disagree with them).
    "unread-counter",
    # Each task's own record names its active run: the product's pointer, not one a driver works out from the runs.
    "active-run-pointer",
]

FACTS: tuple[Fact, ...] = get_args(Fact)

CHECK_FACTS: dict[str, frozenset[Fact]] = {
    # The product's "read by run N" is confirmed by run N's own read receipts: both are needed to judge it.
    "lifecycle.messages-consumed": frozenset({"message-read", "receipts"}),
    # A consumed message handed to another run shows in that run's read receipts (every driver's runner writes
    # them); a product's own record of its wakes (message-wakes) adds to them where there is one.
    "lifecycle.messages-handed-once": frozenset({"message-read", "receipts"}),
    "lifecycle.runner-identity": frozenset({"runner-identity"}),
    "lifecycle.runs-have-a-cause": frozenset({"run-cause"}),
    "restart.same-run": frozenset({"runner-identity"}),
    "restart.runner-kept-going": frozenset({"runner-identity", "receipts"}),
    "restart.message-received": frozenset({"receipts"}),
    "drain.message-received": frozenset({"receipts"}),
    # The product's counter against the messages no runner's own read receipts name.
    "invariant.unread-count": frozenset({"unread-counter", "receipts"}),
    "skill.sidebar-lists-created": frozenset({"task-skills"}),
    "skill.sidebar-opens-created": frozenset({"task-skills"}),
}


def missing_facts(check_id: str, observes: Iterable[Fact]) -> list[Fact]:
    """The facts ``check_id`` is decided on that a product observing ``observes`` does not expose."""
    return sorted(CHECK_FACTS.get(check_id, frozenset()) - set(observes))


def unobservable_reason(check_id: str, observes: Iterable[Fact], product: str) -> str | None:
    """Why ``check_id`` cannot be judged on ``product``; None when every fact it needs is exposed."""
    missing = missing_facts(check_id, observes)
    return f"{product} does not expose {', '.join(missing)}" if missing else None
