"""A person's word on a judged criterion: ``harness review ATTEMPT --criterion ID --set STATUS --note ...``.

It is kept as one more judgement, by the judge ``review``, numbered beside
the judges' (every earlier override stays: its history), and it decides the
criterion over any jury. The report shows it beside the judges it overrides.
"""

from __future__ import annotations

import json
from pathlib import Path

from harness.core import registry
from harness.core.records import AttemptRecord
from harness.judges.mapping import REVIEW_JUDGE
from harness.judges.models import JudgeResult, JudgeStatus
from harness.judges.requests import build_request
from harness.judges.store import Judgement, write_judgement


class OverrideError(ValueError):
    """The override cannot be written; the message says why in one line."""


def override(package: Path, criterion_id: str, status: str, reviewer: str, note: str) -> Path:
    """Write the reviewer's result for ``criterion_id`` of the attempt in ``package``."""
    try:
        record = AttemptRecord.model_validate(json.loads((package / "attempt.json").read_bytes()))
    except (OSError, ValueError) as error:
        raise OverrideError(f"{package} has no readable attempt.json: {error}") from error
    case = next((c for c in registry.cases() if c.name == record.cell.case), None)
    criterion = next((c for c in case.criteria if c.id == criterion_id), None) if case else None
    if criterion is None:
        known = ", ".join(c.id for c in case.criteria) if case and case.criteria else "none"
        raise OverrideError(f"case {record.cell.case} has no judged criterion {criterion_id!r} (its criteria: {known})")
    if status not in {s.value for s in JudgeStatus} - {JudgeStatus.ERROR.value}:
        raise OverrideError(f"--set {status!r}: passed, failed or inconclusive")
    if not note.strip():
        raise OverrideError("the review note is empty")
    attempt = f"{record.campaign}/{record.cell.execution_id}/{record.attempt}"
    request = build_request(package, attempt, record.cell.case, criterion)
    result = JudgeResult(
        judge=REVIEW_JUDGE,
        judge_version="1",
        criterion_id=criterion_id,
        status=JudgeStatus(status),
        reason=note.strip(),
        reviewer=reviewer,
        request_digest="",
    )
    return write_judgement(package, Judgement(request=request, result=result))
