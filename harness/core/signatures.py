"""What a known finding's failure looks like: a check id and a pattern over the failure's detail and the records it names.

A finding declared by check ids alone would take any failure of those checks
for itself, so a new, different defect on the same check would be reported
as the old one. A signature says how the old defect prints: a failure of the
check that does not match it is a new failure, never the finding.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from pydantic import BaseModel, ConfigDict, Field, field_validator

from harness.core.records import CheckRecord


class FailureSignature(BaseModel):
    """One check's failure as the finding prints it; the pattern is searched in the detail and each evidence entry."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    check: str = Field(min_length=1, description="the exact check id")
    pattern: str = Field(
        min_length=1,
        description="a regular expression searched (re.search) in the failed check's detail and in each record or"
        " path it names as evidence",
    )

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, pattern: str) -> str:
        try:
            re.compile(pattern)
        except re.error as error:
            raise ValueError(f"signature pattern {pattern!r} is not a regular expression: {error}") from error
        return pattern

    def matches(self, failure: CheckRecord) -> bool:
        """The failure is of this signature's check and prints what the signature says."""
        found = re.compile(self.pattern)
        return failure.id == self.check and any(found.search(text) for text in (failure.detail, *failure.evidence))


def unmatched(signatures: Sequence[FailureSignature], failures: Iterable[CheckRecord]) -> list[CheckRecord]:
    """The failures of a signed check that match none of its signatures: a new defect on the finding's check."""
    signed = {signature.check for signature in signatures}
    return [
        failure
        for failure in failures
        if failure.id in signed and not any(signature.matches(failure) for signature in signatures)
    ]


def every_problem(problem: str, lead: str = "") -> str:
    """A pattern for a check's whole detail: after ``lead``, each of its "; "-joined problems of this shape.

    A check joins its problems with "; ". A pattern searched for one problem's
    shape would take a detail that names the finding's problem beside another
    defect's for the finding; this one matches only when every problem is of
    the finding's shape.
    """
    return rf"^{lead}{problem}(; {problem})*$"
