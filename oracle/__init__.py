"""The independent delivery oracle: `from oracle import grade` grades a delivered ZIP in a locked-down container."""

from oracle.checks import Check
from oracle.grader import GradeResult, grade
from oracle.image import CannotGrade

__all__ = ["CannotGrade", "Check", "GradeResult", "grade"]
