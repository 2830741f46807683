"""Every check the oracle can report, in the order that decides a grade.

Stable ids live here and only here: stories, calibration expectations and
reviewers refer to them, so a rename must be a deliberate, visible change.
The *deciding* check of a failed grade is the first failed one in this order
(an unsafe archive is reported as such, not as a missing README).
"""

from __future__ import annotations

from pydantic import BaseModel

INTAKE_READABLE = "intake.readable"
INTAKE_SAFE_PATHS = "intake.safe-paths"
INTAKE_NO_LINKS = "intake.no-links"
INTAKE_UNIQUE_NAMES = "intake.unique-names"
INTAKE_LIMITS = "intake.limits"
INTAKE_HONEST_SIZES = "intake.honest-sizes"

STRUCTURE_SINGLE_MODULE = "structure.single-module"
STRUCTURE_README = "structure.readme"
STRUCTURE_TESTS = "structure.tests"

SANDBOX_COMPLETED = "sandbox.completed"

BASE_CLI = "base.cli"
BASE_FUNCTION = "base.function"
SEPARATOR_VALUES = "separator.values"
SEPARATOR_INVALID_REJECTED = "separator.invalid-rejected"
MAX_LENGTH_VALUES = "max-length.values"
MAX_LENGTH_INVALID_REJECTED = "max-length.invalid-rejected"
COMBINED_VALUES = "combined.values"

# Recorded for reviewers, never deciding: the agent's own tests cannot grade its delivery.
DIAGNOSTIC_AGENT_TESTS = "diagnostic.agent-tests"
DIAGNOSTICS: tuple[str, ...] = (DIAGNOSTIC_AGENT_TESTS,)

ORDER: tuple[str, ...] = (
    INTAKE_READABLE,
    INTAKE_SAFE_PATHS,
    INTAKE_NO_LINKS,
    INTAKE_UNIQUE_NAMES,
    INTAKE_LIMITS,
    INTAKE_HONEST_SIZES,
    STRUCTURE_SINGLE_MODULE,
    STRUCTURE_README,
    STRUCTURE_TESTS,
    SANDBOX_COMPLETED,
    BASE_CLI,
    BASE_FUNCTION,
    SEPARATOR_VALUES,
    SEPARATOR_INVALID_REJECTED,
    MAX_LENGTH_VALUES,
    MAX_LENGTH_INVALID_REJECTED,
    COMBINED_VALUES,
)


class Check(BaseModel):
    """One graded observation: what was checked, whether it held, and why in one line."""

    id: str
    passed: bool
    detail: str


def check(check_id: str, passed: bool, detail: str) -> Check:
    """Build a Check, refusing ids that are not registered above (typos would silently never decide)."""
    if check_id not in ORDER + DIAGNOSTICS:
        raise ValueError(f"unregistered check id {check_id!r}")
    return Check(id=check_id, passed=passed, detail=detail)


def ordered(checks: list[Check]) -> list[Check]:
    """Sort checks into deciding order."""
    return sorted(checks, key=lambda c: ORDER.index(c.id))


def deciding(checks: list[Check]) -> Check | None:
    """The first failed check in deciding order, or None when every check passed."""
    return next((c for c in ordered(checks) if not c.passed), None)
