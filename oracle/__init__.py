"""The independent delivery oracle: `from oracle import grade` grades a delivered ZIP in a locked-down container.

The engine (intake, sandbox, image, check registry, CLI) knows no task;
tasks plug in as `oracle/tasks/<name>/` and are loaded by name.
"""

from oracle.checks import Check
from oracle.grader import GradeResult, grade
from oracle.image import CannotGrade
from oracle.task import OracleTask, UnknownMode
from oracle.tasks import UnknownTask

__all__ = ["CannotGrade", "Check", "GradeResult", "OracleTask", "UnknownMode", "UnknownTask", "grade"]
