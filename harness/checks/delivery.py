"""What the harness downloaded and what the oracle made of it: rules over hashes the harness computed itself."""

from __future__ import annotations

from pydantic import BaseModel

from harness.core.records import CheckRecord


class Graded(BaseModel):
    """One oracle grade of one downloaded phase, as the harness kept it (the full result is in oracle/)."""

    phase: str
    mode: str
    passed: bool
    failing: list[tuple[str, str]] = []
    """Each failing oracle check's id and detail, in deciding order."""


def downloaded_as_claimed(phase: str, downloaded: str, claimed: str) -> CheckRecord:
    """The bytes the person downloaded hash to what the product says it stored."""
    return CheckRecord(
        id=f"delivery.{phase}.sha256",
        passed=downloaded == claimed,
        detail=f"downloaded {downloaded}, product says {claimed}",
    )


def downloads_again_alike(phase: str, original: str, again: str | None) -> CheckRecord:
    """The earlier delivery still downloads, with exactly its bytes (``again`` None: the product no longer lists
    a delivery with those bytes)."""
    if again is None:
        return CheckRecord(
            id="delivery.redownload-identical", passed=False, detail=f"no delivery with sha256 {original} any more"
        )
    return CheckRecord(
        id="delivery.redownload-identical",
        passed=again == original,
        detail=f"{phase} downloaded again: {again} (originally {original})",
    )


def revision_differs(first_phase: str, first: str, second_phase: str, second: str) -> CheckRecord:
    """The revision delivered other bytes than the first delivery."""
    return CheckRecord(
        id="delivery.revision-differs",
        passed=first != second,
        detail=f"{first_phase} {first[:12]} vs {second_phase} {second[:12]}",
    )


def oracle_checks(graded: Graded) -> list[CheckRecord]:
    """The oracle's verdict on a phase, and each of its failing checks by name."""
    failing = [check_id for check_id, _ in graded.failing]
    detail = f"mode {graded.mode}: passed" if graded.passed else f"mode {graded.mode}: failed {', '.join(failing)}"
    return [
        CheckRecord(id=f"oracle.{graded.phase}", passed=graded.passed, detail=detail),
        *(
            CheckRecord(id=f"oracle.{graded.phase}.{check_id}", passed=False, detail=why)
            for check_id, why in graded.failing
        ),
    ]
