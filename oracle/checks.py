"""The engine's check ids and the registry that puts a task's checks in deciding order.

Stable ids are part of the interface: stories, calibration expectations and
reviewers refer to them, so a rename must be a deliberate, visible change.
The engine owns the ids every task shares (intake, sandbox); each task owns
its own ids and registers them with `CheckRegistry.for_task`. The *deciding*
check of a failed grade is the first failed one in deciding order: intake,
then the task's host-side checks, then the sandbox run, then the task's
checks of what ran there (an unsafe archive is reported as such, not as a
missing README).
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel

INTAKE_READABLE = "intake.readable"
INTAKE_SAFE_PATHS = "intake.safe-paths"
INTAKE_NO_LINKS = "intake.no-links"
INTAKE_UNIQUE_NAMES = "intake.unique-names"
INTAKE_LIMITS = "intake.limits"
INTAKE_HONEST_SIZES = "intake.honest-sizes"
INTAKE: tuple[str, ...] = (
    INTAKE_READABLE,
    INTAKE_SAFE_PATHS,
    INTAKE_NO_LINKS,
    INTAKE_UNIQUE_NAMES,
    INTAKE_LIMITS,
    INTAKE_HONEST_SIZES,
)

SANDBOX_COMPLETED = "sandbox.completed"
SANDBOX_RERAN = "sandbox.reran"
"""Recorded, never deciding: what did not finish within its limit and was run once more (a host stalled by other
work once froze an honest call past its limit), and whether it then finished. Absent when nothing was run again."""
ENGINE_DIAGNOSTICS: tuple[str, ...] = (SANDBOX_RERAN,)


class Check(BaseModel):
    """One graded observation: what was checked, whether it held, and why in one line."""

    id: str
    passed: bool
    detail: str


@dataclass(frozen=True)
class CheckRegistry:
    """The ids one grade may report, in deciding order, plus diagnostics that are recorded but never decide."""

    order: tuple[str, ...]
    diagnostics: tuple[str, ...] = ()

    @classmethod
    def for_task(
        cls, host: tuple[str, ...], sandboxed: tuple[str, ...], diagnostics: tuple[str, ...] = ()
    ) -> CheckRegistry:
        """A task's registry: the engine's ids around the task's host-side and sandboxed check ids."""
        order = (*INTAKE, *host, SANDBOX_COMPLETED, *sandboxed)
        every_diagnostic = (*ENGINE_DIAGNOSTICS, *diagnostics)
        if len({*order, *every_diagnostic}) != len(order) + len(every_diagnostic):
            raise ValueError("a task's check ids must be unique and distinct from the engine's")
        return cls(order=order, diagnostics=every_diagnostic)

    def check(self, check_id: str, passed: bool, detail: str) -> Check:
        """Build a Check, refusing ids that are not registered (typos would silently never decide)."""
        if check_id not in self.order + self.diagnostics:
            raise ValueError(f"unregistered check id {check_id!r}")
        return Check(id=check_id, passed=passed, detail=detail)

    def ordered(self, checks: list[Check]) -> list[Check]:
        """Sort checks into deciding order."""
        return sorted(checks, key=lambda c: self.order.index(c.id))

    def deciding(self, checks: list[Check]) -> Check | None:
        """The first failed check in deciding order, or None when every check passed."""
        return next((c for c in self.ordered(checks) if not c.passed), None)


ENGINE = CheckRegistry(order=(*INTAKE, SANDBOX_COMPLETED), diagnostics=ENGINE_DIAGNOSTICS)
"""The ids the engine itself reports, whatever the task."""

check = ENGINE.check
