"""`grade()`: intake, structure, one sandboxed run, and the host's verdict, as one pydantic result.

This is the public entry point stories call in-process and the CLI wraps.
It raises CannotGrade only when grading was impossible (no engine, no
image); everything wrong with the delivery is a failed check instead.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path, PurePosixPath

import docker
from docker.errors import DockerException
from pydantic import BaseModel, ValidationError

from oracle import behaviour, image
from oracle import checks as ids
from oracle.checks import Check, check, deciding, ordered
from oracle.contract import MODES, SOURCE_FILE, Mode
from oracle.intake import IntakeLimits, intake
from oracle.sandbox import DELIVERY_MOUNT, SandboxLimits, remove_leftovers, run_collector
from oracle.structure import structure_checks


class GradeResult(BaseModel):
    """One grade: the verdict, every check in deciding order, and what it ran in."""

    passed: bool
    mode: Mode
    checks: list[Check]
    deciding_check: str | None
    image: str | None
    elapsed_s: float
    zip_sha256: str | None
    zip_path: str


def _sha256(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def collector_plan(mode: Mode, project: PurePosixPath, limits: SandboxLimits) -> dict:
    """The JSON plan the in-container collector executes."""
    return {
        "python": "python3",
        "project": str(project),
        "source_file": SOURCE_FILE,
        "cli": [{"args": list(e.args), "fresh": e.fresh} for e in behaviour.expectations(mode)],
        "function_texts": behaviour.function_texts(),
        "command_timeout_s": limits.command_timeout_s,
        "stdout_limit": 1024,
        "function_stdout_limit": 64 * 1024,
        "memory_bytes": limits.child_memory_bytes,
        "workers": 8,
    }


def _sandboxed_checks(client: docker.DockerClient, image_id: str, mode: Mode, delivery: Path, project: Path, limits: SandboxLimits) -> list[Check]:
    inside = PurePosixPath(DELIVERY_MOUNT, *project.relative_to(delivery).parts)
    run = run_collector(client, image_id, delivery, collector_plan(mode, inside, limits), limits)
    if run.deadline_hit:
        return [check(ids.SANDBOX_COMPLETED, False, f"the grade did not finish within {limits.grade_deadline_s:g} s and was killed")]
    try:
        lines = run.stdout.decode("utf-8", "surrogateescape").strip().splitlines()
        observations = behaviour.Observations.model_validate(json.loads(lines[-1]))
    except (IndexError, ValueError, ValidationError):
        detail = f"the sandbox produced no readable observations (exit {run.exit}): {run.stderr_tail.splitlines()[-1] if run.stderr_tail else 'no error output'}"
        return [check(ids.SANDBOX_COMPLETED, False, detail[:300])]
    return [check(ids.SANDBOX_COMPLETED, True, "every planned invocation was observed"), *behaviour.behaviour_checks(mode, observations)]


def _checks(client: docker.DockerClient, image_id: str, mode: Mode, zip_path: Path, limits: SandboxLimits) -> list[Check]:
    """Intake, then structure, then the sandboxed run; each stage only when the previous one allows it."""
    with intake(zip_path, IntakeLimits()) as (results, delivery):
        if delivery is not None:
            found, project = structure_checks(delivery)
            results += found
            if project is not None:
                results += _sandboxed_checks(client, image_id, mode, delivery, project, limits)
    return results


def grade(
    zip_path: str | Path,
    mode: Mode = "separator+max-length",
    *,
    image_ref: str | None = None,
    command_timeout_s: float = 4.0,
    deadline_s: float = 30.0,
    client: docker.DockerClient | None = None,
) -> GradeResult:
    """Grade one delivered ZIP against the build-revise contract in `mode`.

    image_ref overrides image resolution (else EVERYDAY_ORACLE_IMAGE, the local
    tag, the pinned digest). Raises image.CannotGrade when there is no engine
    or no image; never pulls and never runs the delivery on the host.
    """
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
    started = time.monotonic()
    zip_path = Path(zip_path)
    client = client or image.engine()
    chosen = image.resolve(client, image_ref)
    remove_leftovers(client)
    limits = SandboxLimits(command_timeout_s=command_timeout_s, grade_deadline_s=deadline_s)
    try:
        results = _checks(client, chosen.id, mode, zip_path, limits)
    except DockerException as error:
        raise image.CannotGrade(f"the Docker engine failed during the grade: {str(error).splitlines()[0][:200]}") from None
    results = ordered(results)
    first_failure = deciding(results)
    return GradeResult(
        passed=first_failure is None,
        mode=mode,
        checks=results,
        deciding_check=first_failure.id if first_failure else None,
        image=chosen.id,
        elapsed_s=round(time.monotonic() - started, 3),
        zip_sha256=_sha256(zip_path),
        zip_path=str(zip_path),
    )
