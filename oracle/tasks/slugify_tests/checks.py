"""The slugify-tests task's check ids, registered with the engine in deciding order.

`tests.hands-off` comes first among the sandboxed checks: a suite that
peeked at the implementations (or was refused when it tried) has results
that mean nothing, so the peek is what decides, not its consequences.
"""

from __future__ import annotations

from oracle.checks import CheckRegistry
from oracle.tasks.slugify_tests.faults import FAULTS

STRUCTURE_TEST_MODULE = "structure.test-module"

TESTS_HANDS_OFF = "tests.hands-off"
TESTS_PASS_REFERENCE = "tests.pass-reference"
TESTS_CATCH_FAULTS = "tests.catch-faults"

OUTCOME_REFERENCE = "outcome.reference"
"""Diagnostics, one per implementation: the suite's own outcome against it (recorded, never deciding)."""


def outcome_id(fault: str) -> str:
    return f"outcome.{fault}"


REGISTRY = CheckRegistry.for_task(
    host=(STRUCTURE_TEST_MODULE,),
    sandboxed=(TESTS_HANDS_OFF, TESTS_PASS_REFERENCE, TESTS_CATCH_FAULTS),
    diagnostics=(OUTCOME_REFERENCE, *(outcome_id(f.name) for f in FAULTS)),
)
check = REGISTRY.check
