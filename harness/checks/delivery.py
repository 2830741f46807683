"""What the harness downloaded and what the oracle made of it: rules over hashes the harness computed itself.

Delivered files are compared by content, never archives by bytes: a ZIP
written again from the same files differs in its timestamps, and an archive
of nothing "matches" everything. So a revision must change a file's content,
and a workspace check must have compared at least one delivered file.
"""

from __future__ import annotations

import hashlib
import io
import zipfile

from pydantic import BaseModel, Field

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


REVISION_DIFFERS = "delivery.revision-differs"
WORKSPACE_RETURNED = "sandbox.workspace-returned"


def file_hashes(archive: bytes) -> dict[str, str]:
    """Each regular file of a ZIP, by name, with the sha256 of its content."""
    with zipfile.ZipFile(io.BytesIO(archive)) as opened:
        return {
            info.filename: hashlib.sha256(opened.read(info)).hexdigest()
            for info in opened.infolist()
            if not info.is_dir()
        }


def changed_files(before: dict[str, str], after: dict[str, str]) -> list[str]:
    return sorted(name for name in before.keys() | after.keys() if before.get(name) != after.get(name))


def revision_differs(
    first_phase: str, first: dict[str, str] | None, second_phase: str, second: dict[str, str] | None
) -> CheckRecord:
    """The revision changed the content of at least one file (added, removed or rewritten); None: not kept."""
    if first is None or second is None:
        return CheckRecord(
            id=REVISION_DIFFERS, passed=False, detail="no evidence: the delivered files of a phase were not kept"
        )
    changed = changed_files(first, second)
    detail = (
        f"{second_phase} changed {len(changed)} file(s) of {first_phase}: {', '.join(changed[:5])}"
        if changed
        else f"{second_phase} holds the same {len(first)} file(s) as {first_phase}, byte for byte (only the archive"
        " differs, if anything)"
    )
    return CheckRecord(id=REVISION_DIFFERS, passed=bool(changed), detail=detail)


class ReturnedWorkspace(BaseModel):
    """One task's latest delivery and its workspace as the product lists it after the work, file by file."""

    task_id: str
    delivered: dict[str, str] = Field(description="file name -> sha256, from the delivered ZIP")
    kept: dict[str, str] = Field(description="file name -> sha256, from the product's workspace listing")


def workspace_returned(workspaces: list[ReturnedWorkspace] | None) -> CheckRecord:
    """Every file of each task's latest delivery is in its workspace, byte for byte, and at least one was compared."""
    if workspaces is None:
        return CheckRecord(id=WORKSPACE_RETURNED, passed=False, detail="no evidence: the workspaces were not read")
    problems = []
    for workspace in workspaces:
        differ = sorted(name for name, sha in workspace.delivered.items() if workspace.kept.get(name) != sha)
        if differ:
            problems.append(f"task {workspace.task_id}: {differ[:3]} not in its workspace as delivered")
    compared = sum(len(workspace.delivered) for workspace in workspaces)
    if not compared:
        problems.append("no delivered file to compare: nothing shows the workspace came back")
    detail = "; ".join(problems) or f"{compared} delivered file(s) are in their tasks' workspaces, byte for byte"
    return CheckRecord(id=WORKSPACE_RETURNED, passed=not problems, detail=detail)
