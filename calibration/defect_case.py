"""One product defect's calibration case: the defect, the story that should catch it and the check that must name it."""

from __future__ import annotations

from pydantic import BaseModel, Field

# A defect seen only while a run is active gets a slower agent, so the invariants sampled during waits
# (every 0.5 s; a state counts once seen twice in a row, a delivery's bytes are read once, when it
# appears) see it for sure: each step then outlasts a sampling interval.
WINDOW_PACE_S = 0.5

CONTAINER_CELL = "everyday-workflows-scripted.scripted.container.{}"


class DefectCase(BaseModel):
    """One defect, the story that should catch it and the check that must name it."""

    defect: str
    case: str
    expected_check: str
    why: str = ""
    pace_s: float | None = Field(
        default=None, gt=0, description="a slower scripted agent, for a defect visible only while a run is active"
    )
    persona: str | None = Field(
        default=None, description="a scripted persona that reaches the defect (an agent that asks twice, say)"
    )
    deadline_s: int | None = Field(
        default=None, gt=0, description="a shorter attempt deadline (--deadline) for a defect that shows only by time"
    )
    also_expected: tuple[str, ...] = Field(
        default=(),
        description="checks that must fail in the same attempt too: one cell calibrates every check the defect"
        " reaches (a download's sha256 in each phase, say)",
    )
    alone: bool = Field(
        default=False,
        description="no other check may fail (beyond also_expected): the story tells this defect apart from every other",
    )
    cell: str | None = Field(
        default=None,
        description="the full execution id to run instead of the story's scripted cell: a replay cell for a defect"
        " that only a real agent's model calls reach",
    )

    @property
    def label(self) -> str:
        return f"{self.case}/{self.defect}"

    @property
    def campaign(self) -> str:
        return f"calibration-defect-{self.case}-{self.defect}"
