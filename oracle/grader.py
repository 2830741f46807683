"""`grade()`: intake, the task's host checks, one sandboxed run, and the host's verdict, as one pydantic result.

This is the public entry point stories call in-process and the CLI wraps.
It knows no task: it loads one by name and asks it what to check. It raises
CannotGrade only when grading was impossible (no engine, no image) and
UnknownTask/UnknownMode for a question it cannot answer; everything wrong
with the delivery is a failed check instead.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from pydantic import BaseModel, Field, ValidationError

from oracle import image, tasks
from oracle.background import Task
from oracle.checks import SANDBOX_COMPLETED, SANDBOX_RERAN, Check, check
from oracle.engine import Engine, EngineError
from oracle.intake import IntakeLimits, intake
from oracle.sandbox import DELIVERY_MOUNT, MAX_DEADLINE_S, SandboxLimits, Standby, remove_leftovers, run_collector
from oracle.task import OracleTask

DEFAULT_WORKERS = 2
"""Containers graded at once in a batch: the machines this runs on have two cores (each container may use both)."""
MAX_WORKERS = 16


class GradeResult(BaseModel):
    """One grade: the task and mode, the verdict, every check in deciding order, and what it ran in."""

    task: str
    passed: bool
    mode: str
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


class _Request(BaseModel, arbitrary_types_allowed=True):
    """What one grade was asked to do, passed down the stages as one value."""

    task: OracleTask
    image_id: str
    mode: str
    limits: SandboxLimits
    agent_tests: bool


def collector_plan(request: _Request, project: Path, inside: PurePosixPath) -> dict:
    """The JSON plan the in-container collector executes: the task's part plus where to run and the limits."""
    return {
        **request.task.plan(request.mode, project, request.agent_tests),
        "project": str(inside),
        "command_timeout_s": request.limits.command_timeout_s,
        "memory_bytes": request.limits.child_memory_bytes,
    }


def _sandboxed_checks(
    client: Engine, request: _Request, delivery: Path, project: Path, standby: Standby | None
) -> list[Check]:
    inside = PurePosixPath(DELIVERY_MOUNT, *project.relative_to(delivery).parts)
    plan = collector_plan(request, project, inside)
    run = run_collector(client, request.image_id, delivery, request.task.collector, plan, request.limits, standby)
    if run.deadline_hit:
        return [
            check(
                SANDBOX_COMPLETED,
                False,
                f"the grade did not finish within {request.limits.grade_deadline_s:g} s and was killed",
            )
        ]
    try:
        lines = run.stdout.decode("utf-8", "surrogateescape").strip().splitlines()
        raw = json.loads(lines[-1])
        observations = request.task.observations.model_validate(raw)
        reran = _Reran.model_validate(raw).reran
    except (IndexError, ValueError, ValidationError):
        detail = f"the sandbox produced no readable observations (exit {run.exit}): {run.stderr_tail.splitlines()[-1] if run.stderr_tail else 'no error output'}"
        return [check(SANDBOX_COMPLETED, False, detail[:300])]
    judged = request.task.judge(request.mode, observations) + ([_reran_check(reran)] if reran else [])
    if any(c.id == SANDBOX_COMPLETED for c in judged):  # the task knows a step of its own never finished
        return judged
    return [check(SANDBOX_COMPLETED, True, "every planned invocation was observed"), *judged]


class _RunAgain(BaseModel):
    """One call or run a collector ran once more after it did not finish within its limit."""

    what: str
    finished: bool


class _Reran(BaseModel):
    """What every collector reports beside its task's observations."""

    reran: list[_RunAgain] = []


def _reran_check(reran: list[_RunAgain]) -> Check:
    """Passed when every re-run finished: the first time-out was the host's stall, not the delivery's hang."""
    outcomes = "; ".join(f"{r.what} ({'finished' if r.finished else 'did not finish again'})" for r in reran)
    return check(SANDBOX_RERAN, all(r.finished for r in reran), f"run once more after its time limit: {outcomes}"[:300])


def _checks(client: Engine, request: _Request, zip_path: Path, standby: Standby | None) -> list[Check]:
    """Intake, then the task's host checks, then the sandboxed run; each stage only when the previous one allows it."""
    with intake(zip_path, IntakeLimits()) as (results, delivery):
        if delivery is not None:
            found, project = request.task.structure(delivery)
            results += found
            if project is not None:
                results += _sandboxed_checks(client, request, delivery, project, standby)
    return results


def _engine_failed(when: str, error: EngineError) -> image.CannotGrade:
    return image.CannotGrade(f"the Docker engine failed {when}: {str(error).splitlines()[0][:200]}")


def _resolve(client: Engine | None, image_ref: str | None, standby: Standby | None) -> tuple[Engine, str]:
    """The engine and the image id a grade (or a batch) runs in.

    A standby's image was resolved by whoever started it: asked for that
    very id, the batch does not look it up again (one engine round trip
    less on the command line's path).
    """
    if standby is not None and image_ref == standby.image_id:
        return standby.client, standby.image_id
    try:
        client = client or image.engine()
        return client, image.resolve(client, image_ref).id
    except EngineError as error:
        raise _engine_failed("before the grade", error) from None


def _grade_one(client: Engine, request: _Request, zip_path: Path, standby: Standby | None = None) -> GradeResult:
    """One ZIP from intake to verdict; a standby given here is used for its sandboxed run and always closed."""
    started = time.monotonic()
    try:
        found = _checks(client, request, zip_path, standby)
    except EngineError as error:
        raise _engine_failed("during the grade", error) from None
    finally:
        if standby is not None:
            standby.close()  # unused when intake or the structure stopped the grade
    registry = request.task.checks
    results = registry.ordered([c for c in found if c.id not in registry.diagnostics])
    first_failure = registry.deciding(results)
    return GradeResult(
        task=request.task.name,
        passed=first_failure is None,
        mode=request.mode,
        checks=results,
        deciding_check=first_failure.id if first_failure else None,
        diagnostics=[c for c in found if c.id in registry.diagnostics],
        image=request.image_id,
        elapsed_s=round(time.monotonic() - started, 3),
        zip_sha256=_sha256(zip_path),
        zip_path=str(zip_path),
    )


def grade(
    zip_path: str | Path,
    mode: str | None = None,
    task: str = tasks.DEFAULT_TASK,
    *,
    image_ref: str | None = None,
    command_timeout_s: float = 4.0,
    deadline_s: float = 30.0,
    agent_tests: bool = False,
    client: Engine | None = None,
) -> GradeResult:
    """Grade one delivered ZIP against `task`'s contract in `mode` (None: the task's default mode, if it has one).

    image_ref overrides image resolution (else EVERYDAY_ORACLE_IMAGE, the local
    tag, the pinned digest). agent_tests also runs the delivery's own tests
    and records the outcome as a non-deciding diagnostic. Raises
    tasks.UnknownTask or tasks.UnknownMode before touching the engine, a
    pydantic ValidationError for limits out of range (a deadline of 0), and
    image.CannotGrade when there is no engine or no image; never pulls and
    never runs the delivery on the host.
    """
    options = GradeOptions(
        image_ref=image_ref,
        command_timeout_s=command_timeout_s,
        deadline_s=deadline_s,
        agent_tests=agent_tests,
        workers=1,
    )
    return grade_batch([GradeJob(zip_path=Path(zip_path), mode=mode, task=task)], options, client=client)[0]


class GradeJob(BaseModel):
    """One ZIP of a batch and what to grade it against; a batch may mix modes and tasks."""

    zip_path: Path
    mode: str | None = None  # None: the task's default mode (a task with several has none and refuses)
    task: str = tasks.DEFAULT_TASK


class GradeOptions(BaseModel):
    """How every ZIP of a batch is graded (see grade() for the meaning of each)."""

    image_ref: str | None = None
    command_timeout_s: float = Field(4.0, gt=0, le=MAX_DEADLINE_S, allow_inf_nan=False)
    deadline_s: float = Field(30.0, gt=0, le=MAX_DEADLINE_S, allow_inf_nan=False)
    agent_tests: bool = False
    workers: int = Field(DEFAULT_WORKERS, ge=1, le=MAX_WORKERS)


def grade_batch(
    jobs: Sequence[GradeJob],
    options: GradeOptions | None = None,
    *,
    client: Engine | None = None,
    standby: Standby | None = None,
) -> list[GradeResult]:
    """Grade several jobs: one result per job, in the order given.

    Why a batch: the engine connection, the image lookup and the leftover
    sweep are paid once, and up to `options.workers` containers run at the
    same time (each still with its own limits and deadline), which is what
    calibration, bulk re-grading and `python -m oracle grade a.zip b.zip`
    need. Every task and mode is checked before the engine is touched. A
    delivery that fails does not stop the others; CannotGrade from any grade
    (the engine went away) ends the whole batch, because a partial batch
    would read as a verdict on the ZIPs it skipped.

    The first job's container is started before any host work (unpacking
    the ZIP, its structure), so the engine starts it meanwhile; the leftover
    sweep runs beside the grades, and its failure (the engine went away)
    ends the batch as CannotGrade all the same. `standby` is such a
    container the caller started even earlier (the command line does,
    before it imports pydantic and the task); it is used only if it matches
    this batch's image and limits, and closed either way.
    """
    options = options or GradeOptions()
    try:
        return _batch(jobs, options, client, standby)
    finally:
        if standby is not None:
            standby.close()


def _batch(
    jobs: Sequence[GradeJob], options: GradeOptions, client: Engine | None, standby: Standby | None
) -> list[GradeResult]:
    chosen_tasks = {job.task: tasks.load(job.task) for job in jobs}
    modes = [chosen_tasks[job.task].require_mode(job.mode) for job in jobs]
    limits = SandboxLimits(command_timeout_s=options.command_timeout_s, grade_deadline_s=options.deadline_s)
    if not jobs:
        return []
    client, image_id = _resolve(client, options.image_ref, standby)
    if standby is None or (standby.image_id, standby.limits) != (image_id, limits):
        # The first job's container starts now, so the engine starts it while the host unpacks the ZIP and
        # checks its structure, instead of after all that.
        standby = Standby(client, image_id, limits)
    # The sweep runs beside the grades, not before them: on the command line its engine calls came between the
    # grader's imports and the first ZIP's copy into its container. Never ours: this process is alive, and a
    # volume in use is never pruned.
    sweeping = Task(lambda: remove_leftovers(client), "oracle-sweep")

    def one(index: int) -> GradeResult:
        job = jobs[index]
        request = _Request(
            task=chosen_tasks[job.task],
            image_id=image_id,
            mode=modes[index],
            limits=limits,
            agent_tests=options.agent_tests,
        )
        return _grade_one(client, request, job.zip_path, standby if index == 0 else None)

    try:
        if len(jobs) == 1 or options.workers == 1:
            results = [one(index) for index in range(len(jobs))]
        else:
            from concurrent.futures import ThreadPoolExecutor  # only a batch of several: one grade needs no pool

            with ThreadPoolExecutor(
                max_workers=min(options.workers, len(jobs)), thread_name_prefix="oracle-grade"
            ) as pool:
                results = list(pool.map(one, range(len(jobs))))
    finally:
        standby.close()  # idempotent: the first job closed it already, unless the batch ended before it ran
        swept = sweeping.error()  # waited for on every path: nothing of it outlives the batch
    if isinstance(swept, EngineError):
        raise _engine_failed("while sweeping leftovers", swept)
    if swept is not None:
        raise swept
    return results
