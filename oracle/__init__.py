"""The independent delivery oracle: `from oracle import grade` grades a delivered ZIP in a locked-down container.

The engine (intake, sandbox, image, check registry, CLI) knows no task;
tasks plug in as `oracle/tasks/<name>/` and are loaded by name.

The names below are imported on first use (PEP 562), not with the package:
`python -m oracle` must not pay for the engine client and pydantic before it
knows what it was asked (a usage error answers at interpreter speed), and a
grade's start-up is part of what users wait for.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads this name the same way)
if TYPE_CHECKING:
    from typing import Any

    from oracle.checks import Check
    from oracle.grader import GradeJob, GradeOptions, GradeResult, grade, grade_batch
    from oracle.image import CannotGrade
    from oracle.task import OracleTask
    from oracle.tasks import UnknownMode, UnknownTask

_HOMES = {
    "Check": "oracle.checks",
    "GradeResult": "oracle.grader",
    "grade": "oracle.grader",
    "GradeOptions": "oracle.grader",
    "grade_batch": "oracle.grader",
    "GradeJob": "oracle.grader",
    "CannotGrade": "oracle.image",
    "OracleTask": "oracle.task",
    "UnknownMode": "oracle.tasks",
    "UnknownTask": "oracle.tasks",
}

__all__ = [
    "CannotGrade",
    "Check",
    "GradeJob",
    "GradeOptions",
    "GradeResult",
    "OracleTask",
    "UnknownMode",
    "UnknownTask",
    "grade",
    "grade_batch",
]


def __getattr__(name: str) -> Any:
    """Import a public name's module the first time it is asked for."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'oracle' has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(home), name)
