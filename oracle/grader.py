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
    diagnostics: list[Check] = []  # never deciding (e.g. the agent's own tests)
    image: str | None
    elapsed_s: float
    zip_sha256: str | None
    zip_path: str


def _sha256(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def collector_plan(mode: Mode, project: PurePosixPath, limits: SandboxLimits, agent_tests: str | None = None) -> dict:
    """The JSON plan the in-container collector executes."""
    return {
        "python": "python3",
        "project": str(project),
        "source_file": SOURCE_FILE,
        "cli": [{"args": list(e.args), "fresh": e.fresh} for e in behaviour.expectations(mode)],
        "function_texts": behaviour.function_texts(),
        "command_timeout_s": limits.command_timeout_s,
        "stdout_limit": 1024,
        "report_stdout_limit": 64 * 1024,
        "agent_tests": agent_tests,
        "memory_bytes": limits.child_memory_bytes,
        "workers": 8,
    }


class _Request(BaseModel):
    """What one grade was asked to do, passed down the stages as one value."""

    image_id: str
    mode: Mode
    limits: SandboxLimits
    agent_tests: bool


def _agent_tests_folder(project: Path) -> str:
    return "tests" if (project / "tests").is_dir() else "."


def _sandboxed_checks(client: docker.DockerClient, request: _Request, delivery: Path, project: Path) -> list[Check]:
    inside = PurePosixPath(DELIVERY_MOUNT, *project.relative_to(delivery).parts)
    plan = collector_plan(request.mode, inside, request.limits, _agent_tests_folder(project) if request.agent_tests else None)
    run = run_collector(client, request.image_id, delivery, plan, request.limits)
    if run.deadline_hit:
        return [check(ids.SANDBOX_COMPLETED, False, f"the grade did not finish within {request.limits.grade_deadline_s:g} s and was killed")]
    try:
        lines = run.stdout.decode("utf-8", "surrogateescape").strip().splitlines()
        observations = behaviour.Observations.model_validate(json.loads(lines[-1]))
    except (IndexError, ValueError, ValidationError):
        detail = f"the sandbox produced no readable observations (exit {run.exit}): {run.stderr_tail.splitlines()[-1] if run.stderr_tail else 'no error output'}"
        return [check(ids.SANDBOX_COMPLETED, False, detail[:300])]
    found = [check(ids.SANDBOX_COMPLETED, True, "every planned invocation was observed"), *behaviour.behaviour_checks(request.mode, observations)]
    if observations.agent_tests is not None:
        found.append(behaviour.agent_tests_diagnostic(observations.agent_tests))
    return found


def _checks(client: docker.DockerClient, request: _Request, zip_path: Path) -> list[Check]:
    """Intake, then structure, then the sandboxed run; each stage only when the previous one allows it."""
    with intake(zip_path, IntakeLimits()) as (results, delivery):
        if delivery is not None:
            found, project = structure_checks(delivery)
            results += found
            if project is not None:
                results += _sandboxed_checks(client, request, delivery, project)
    return results


def grade(
    zip_path: str | Path,
    mode: Mode = "separator+max-length",
    *,
    image_ref: str | None = None,
    command_timeout_s: float = 4.0,
    deadline_s: float = 30.0,
    agent_tests: bool = False,
    client: docker.DockerClient | None = None,
) -> GradeResult:
    """Grade one delivered ZIP against the build-revise contract in `mode`.

    image_ref overrides image resolution (else EVERYDAY_ORACLE_IMAGE, the local
    tag, the pinned digest). agent_tests also runs the delivery's own tests
    (unittest discovery) and records the outcome as a non-deciding diagnostic.
    Raises image.CannotGrade when there is no engine
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
    request = _Request(image_id=chosen.id, mode=mode, limits=limits, agent_tests=agent_tests)
    try:
        found = _checks(client, request, zip_path)
    except DockerException as error:
        raise image.CannotGrade(f"the Docker engine failed during the grade: {str(error).splitlines()[0][:200]}") from None
    results = ordered([c for c in found if c.id not in ids.DIAGNOSTICS])
    first_failure = deciding(results)
    return GradeResult(
        passed=first_failure is None,
        mode=mode,
        checks=results,
        deciding_check=first_failure.id if first_failure else None,
        diagnostics=[c for c in found if c.id in ids.DIAGNOSTICS],
        image=chosen.id,
        elapsed_s=round(time.monotonic() - started, 3),
        zip_sha256=_sha256(zip_path),
        zip_path=str(zip_path),
    )
