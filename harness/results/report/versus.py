"""Attempt against attempt: the two journeys' steps aligned, the checks that differ, each aligned screenshot pair.

Steps are aligned with difflib over their names (what the story did, not
when), so a step only one attempt took shows as only in A or only in B and
the rest keep their pairs; each pair shows how much later or earlier B got
there, counted from each attempt's own start.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from pydantic import BaseModel

from harness.core.records import AttemptRecord, CheckRecord, TimelineEvent
from harness.results.assessed import current_checks
from harness.results.report.screenshot_diff import ScreenshotDiff, diff_screenshots
from harness.results.report.timeline_lanes import screenshot_of

STEP_KINDS = frozenset({None, "screenshot", "download", "fault"})


class StepSide(BaseModel):
    step: str
    detail: str
    offset_s: float
    screenshot: str | None = None


class AlignedStep(BaseModel):
    a: StepSide | None
    b: StepSide | None

    @property
    def where(self) -> str:
        return "both" if self.a and self.b else "only A" if self.a else "only B"

    @property
    def delta_s(self) -> float | None:
        return self.b.offset_s - self.a.offset_s if self.a and self.b else None


class CheckDifference(BaseModel):
    id: str
    a: str
    b: str
    detail_a: str = ""
    detail_b: str = ""


class ScreenshotPair(BaseModel):
    step: str
    a: str
    b: str
    diff: ScreenshotDiff


class Versus(BaseModel):
    steps: list[AlignedStep]
    checks: list[CheckDifference]
    screenshots: list[ScreenshotPair]


def _sides(record: AttemptRecord) -> list[StepSide]:
    start = record.timing.started_at
    return [
        StepSide(
            step=note.step,
            detail=note.detail,
            offset_s=round((note.at - start).total_seconds(), 3),
            screenshot=screenshot_of(note),
        )
        for note in record.timeline
        if _is_step(note)
    ]


def _is_step(note: TimelineEvent) -> bool:
    return note.kind in STEP_KINDS and not note.step.startswith("check ")


def align(a: AttemptRecord, b: AttemptRecord) -> list[AlignedStep]:
    left, right = _sides(a), _sides(b)
    matcher = difflib.SequenceMatcher(a=[s.step for s in left], b=[s.step for s in right], autojunk=False)
    steps: list[AlignedStep] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            steps += [AlignedStep(a=x, b=y) for x, y in zip(left[i1:i2], right[j1:j2], strict=True)]
        else:
            steps += [AlignedStep(a=x, b=None) for x in left[i1:i2]]
            steps += [AlignedStep(a=None, b=y) for y in right[j1:j2]]
    return steps


def _outcome(check: CheckRecord | None) -> str:
    if check is None:
        return "not run"
    return "passed" if check.passed else "not observable" if check.unobservable else "failed"


def check_differences(a: list[CheckRecord], b: list[CheckRecord]) -> list[CheckDifference]:
    """Checks whose outcome differs (a check decided twice counts by its worst outcome)."""

    def by_id(checks: list[CheckRecord]) -> dict[str, CheckRecord]:
        kept: dict[str, CheckRecord] = {}
        for check in checks:
            if check.id not in kept or check.failed:
                kept[check.id] = check
        return kept

    left, right = by_id(a), by_id(b)
    differences = []
    for check_id in sorted(left.keys() | right.keys()):
        x, y = left.get(check_id), right.get(check_id)
        if _outcome(x) != _outcome(y):
            differences.append(
                CheckDifference(
                    id=check_id,
                    a=_outcome(x),
                    b=_outcome(y),
                    detail_a=x.detail if x else "",
                    detail_b=y.detail if y else "",
                )
            )
    return differences


def versus(a_folder: Path, a: AttemptRecord, b_folder: Path, b: AttemptRecord, cache: Path) -> Versus:
    steps = align(a, b)
    pairs = []
    for step in steps:
        if step.a and step.b and step.a.screenshot and step.b.screenshot:
            left, right = a_folder / step.a.screenshot, b_folder / step.b.screenshot
            if left.is_file() and right.is_file():
                diff = diff_screenshots(left, right, cache)
                pairs.append(ScreenshotPair(step=step.a.step, a=step.a.screenshot, b=step.b.screenshot, diff=diff))
    checks = check_differences(current_checks(a_folder, a).checks, current_checks(b_folder, b).checks)
    return Versus(steps=steps, checks=checks, screenshots=pairs)
