"""One attempt of one cell: run its story, classify the outcome, write the package.

This is where the verdict classes are decided, in one place: a story ends
with checks and possibly a StoryOutcome; anything unexpected is the
harness's or the machine's fault (infrastructure_failed), never the agent's.
"""

from __future__ import annotations

import importlib
import re
import secrets as random_tokens
import traceback
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from harness.core.catalog import Cell, suite_definition_hash
from harness.core.cli_probe import live_cell_unavailable_reason
from harness.core.deadline import Deadline
from harness.core.outcomes import is_known_finding
from harness.core.records import (
    Accounting,
    AttemptRecord,
    CellIdentity,
    Outcome,
    PairMark,
    Provenance,
    RecoveryKind,
    Timing,
    utc_now,
)
from harness.core.settings import RunSettings
from harness.core.story_inputs import same_inputs
from harness.core.verdicts import CassetteDiverged, StoryOutcome, Verdict
from harness.evidence.provenance import harness_digest, source_dirty, source_revision
from harness.evidence.recorder import EvidenceRecorder
from harness.evidence.secret_scan import describe, secrets_from_environment
from harness.judging.verdict import verdict_of
from harness.products import product_driver
from harness.products.http import ProductApiError
from harness.results.epochs import INTERRUPTED, recorded_in
from harness.results.explain import HARNESS_ERROR_LOG
from harness.results.slots import slots_to_play
from harness.running.cost_limit import cost_limit_reason
from harness.running.interrupt import interrupted, stopped_by
from harness.running.progress import AttemptProgress


class AttemptContext(BaseModel):
    """What a journey factory is handed to build the story's world."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    cell: Cell
    settings: RunSettings
    recorder: EvidenceRecorder
    deadline: Deadline


class Conclusion(BaseModel):
    """What the journey learned by the end, beyond checks: timing, accounting, the oracle's image."""

    agent_run_s: float | None = None
    accounting: Accounting = Accounting()
    oracle_image: str | None = None
    agent_clis: dict[str, str] = {}


OpenJourney = Callable[[AttemptContext], AbstractContextManager[Any]]


def new_attempt_id(cell_folder: Path) -> str:
    """Ordinal for people, random suffix so attempts from different machines never collide."""
    number = 1 + sum(1 for child in cell_folder.iterdir() if child.is_dir()) if cell_folder.is_dir() else 1
    return f"{number}-{random_tokens.token_hex(4)}"


def run_cell(
    cell: Cell,
    settings: RunSettings,
    open_journey: OpenJourney,
    secret_patterns: Mapping[str, re.Pattern[bytes]] | None = None,
) -> list[AttemptRecord]:
    """Every attempt this run plays of a cell: its slots, each with its automatic retries.

    A fresh run plays ``settings.attempts`` slots; a resume only those
    ``slots_to_play`` names (missing ones, and those that ended as ``--rerun``
    says). A paired run plays each slot once per variant, back to back, and
    marks both attempts with the slot's pair id.
    """
    variants = settings.variants()
    slots = slots_to_play(
        recorded_in(settings.results / settings.campaign / cell.execution_id) if settings.resume else [],
        settings.epochs,
        [label for label, _ in variants],
        settings.reruns if settings.resume else None,
        paired=settings.pair is not None,
    )
    attempts: list[AttemptRecord] = []
    for slot in slots:
        with same_inputs() if settings.pair else nullcontext():
            for index, (label, variant) in enumerate(variants):
                pair = None
                if settings.pair is not None and slot.pair is not None:
                    pair = PairMark(id=slot.pair, variant=label, setting=settings.pair.setting, first=index == 0)
                marks = SlotMarks(pair=pair, supersedes=slot.supersedes.get(label))
                attempts += run_epoch(cell, variant, open_journey, secret_patterns, marks)
    return attempts


class SlotMarks(BaseModel):
    """What an attempt records about its slot: its half of a pair, and the attempt a resume played it instead of."""

    pair: PairMark | None = None
    supersedes: str | None = None


def run_epoch(
    cell: Cell,
    settings: RunSettings,
    open_journey: OpenJourney,
    secret_patterns: Mapping[str, re.Pattern[bytes]] | None = None,
    marks: SlotMarks | None = None,
) -> list[AttemptRecord]:
    """One independent attempt: one, plus at most one retry after an infrastructure failure (none for a one-attempt case).

    With ``settings.retry_of`` the epoch began elsewhere (on a lost node): its first attempt here is that retry.
    A retry keeps the slot's pair; only the first attempt supersedes what a resume replaces.
    """
    attempts: list[AttemptRecord] = []
    marks = marks or SlotMarks()
    retries = 0 if settings.retry_of else cell.automatic_retries(settings.max_automatic_retries)
    for _ in range(1 + retries):
        retry_of = attempts[-1].attempt if attempts else settings.retry_of
        slot = marks if not attempts else marks.model_copy(update={"supersedes": None})
        attempts.append(run_attempt(cell, settings, open_journey, secret_patterns, retry_of, slot, _retried(attempts)))
        if attempts[-1].verdict is not Verdict.INFRASTRUCTURE_FAILED:
            break
    return attempts


def _retried(attempts: list[AttemptRecord]) -> str | None:
    """Why the harness plays this epoch again: its last attempt's infrastructure failure (None for a first attempt)."""
    if not attempts:
        return None
    last = attempts[-1]
    return f"attempt {last.attempt} ended {last.verdict.value}: {last.reason}"


def _play(cell: Cell, context: AttemptContext, open_journey: OpenJourney) -> tuple[Verdict, str, Conclusion]:
    """Run the story, then conclude (final evidence, lifecycle checks) whatever happened; classify how it ended.

    Concluding never hides the story's own ending: if the story already
    ended (a failure, Ctrl-C), an error while concluding is logged, not promoted.
    """
    story = importlib.import_module(cell.case.story).story
    conclusion = Conclusion()
    ending: BaseException | None = None
    product_running = False  # until the journey is open, a product error means it failed to start
    try:
        with open_journey(context) as journey:
            product_running = True
            try:
                story(journey)
            except BaseException as error:  # noqa: BLE001  decided below, once concluding is done
                ending = error
            try:
                conclusion = journey.conclude()
            except Exception as error:
                _log_error(context.recorder, error, "while concluding")
                ending = ending or error
    except BaseException as error:  # noqa: BLE001  the product or the browser failed to open or close
        ending = error if isinstance(error, CassetteDiverged) else ending or error
    if ending is None:
        return Verdict.PASSED, "", conclusion
    verdict, reason = classify(ending, context, product_running)
    return verdict, reason, conclusion


PRODUCT_API_CHECK = "product.api-answered"


def classify(ending: BaseException, context: AttemptContext, product_running: bool = True) -> tuple[Verdict, str]:
    """The one place that turns how a story ended into a verdict class (before its checks are counted).

    A running product that answers its own API with an error fails ``product.api-answered``;
    one that never got running (its start-up failed) is infrastructure.
    """
    if interrupted() or isinstance(ending, KeyboardInterrupt):
        raise KeyboardInterrupt from ending
    if isinstance(ending, StoryOutcome):
        return ending.verdict, ending.reason
    if not isinstance(ending, Exception):
        raise ending
    if isinstance(ending, ProductApiError) and product_running:
        context.recorder.check(PRODUCT_API_CHECK, False, str(ending))
        return Verdict.FAILED, f"{PRODUCT_API_CHECK}: {ending}"
    _log_error(context.recorder, ending, "")  # the harness or the machine broke, not the product
    return Verdict.INFRASTRUCTURE_FAILED, f"{type(ending).__name__}: {ending}"


def _log_error(recorder: EvidenceRecorder, error: BaseException, when: str) -> None:
    text = "".join(traceback.format_exception(error))
    with (recorder.folder / HARNESS_ERROR_LOG).open("a") as log:
        log.write(f"--- {type(error).__name__} {when}\n{text}\n")


def run_attempt(
    cell: Cell,
    settings: RunSettings,
    open_journey: OpenJourney,
    secret_patterns: Mapping[str, re.Pattern[bytes]] | None = None,
    retry_of: str | None = None,
    marks: SlotMarks | None = None,
    retried_because: str | None = None,
) -> AttemptRecord:
    """One attempt, its package written; ``retried_because`` (a retry of an infrastructure failure) is its recovery."""
    cell_folder = settings.results / settings.campaign / cell.execution_id
    attempt_id = new_attempt_id(cell_folder)
    progress = AttemptProgress(cell.execution_id, attempt_id)
    recorder = EvidenceRecorder(cell_folder / attempt_id, unobservable=cell.unobservable, on_step=progress.step)
    started = utc_now()
    deadline = Deadline(settings.deadline_s or cell.deadline_s)
    conclusion = Conclusion()
    if retry_of is not None:
        recorder.recovered(RecoveryKind.ATTEMPT_RETRIED, retried_because or f"a retry of attempt {retry_of}")

    # A cassette stands in for the provider: a live cell replayed from one needs no key.
    unavailable = (settings.cassette is None and live_cell_unavailable_reason(cell)) or cost_limit_reason(
        cell, settings
    )
    if unavailable:
        verdict, reason = Verdict.SKIPPED, unavailable
    else:
        context = AttemptContext(cell=cell, settings=settings, recorder=recorder, deadline=deadline)
        try:
            verdict, reason, conclusion = _play(cell, context, open_journey)
        except KeyboardInterrupt:
            reason = f"interrupted by the user ({stopped_by()})"
            record = _finish(
                recorder,
                cell,
                settings,
                attempt_id,
                retry_of,
                Verdict.INFRASTRUCTURE_FAILED,
                reason,
                started,
                deadline,
                conclusion,
                secret_patterns,
                interrupted=True,
                marks=marks,
            )
            progress.ended(record, recorder.folder, INTERRUPTED)
            raise
    record = _finish(
        recorder,
        cell,
        settings,
        attempt_id,
        retry_of,
        verdict,
        reason,
        started,
        deadline,
        conclusion,
        secret_patterns,
        marks=marks,
    )
    known = " (known finding)" if is_known_finding(record, cell.known_finding) else ""
    progress.ended(record, recorder.folder, record.verdict.value + known)
    return record


def _finish(
    recorder: EvidenceRecorder,
    cell: Cell,
    settings: RunSettings,
    attempt_id: str,
    retry_of: str | None,
    verdict: Verdict,
    reason: str,
    started: datetime,
    deadline: Deadline,
    conclusion: Conclusion,
    secret_patterns: Mapping[str, re.Pattern[bytes]] | None,
    interrupted: bool = False,
    marks: SlotMarks | None = None,
) -> AttemptRecord:
    """Scan for secrets, then write attempt.json: a leak fails the attempt and names the file only."""
    known_secrets = {**secrets_from_environment(), **recorder.known_secrets}
    outcome = Outcome(verdict=verdict, reason=reason)
    verdict, reason = verdict_of(outcome, recorder.checks, interrupted, recorder.recoveries)
    ended = utc_now()
    wall = (ended - started).total_seconds()
    record = AttemptRecord(
        campaign=settings.campaign,
        attempt=attempt_id,
        cell=CellIdentity(
            execution_id=cell.execution_id,
            suite=cell.suite.name,
            profile=cell.profile.name,
            environment=cell.environment.name,
            case=cell.case.name,
        ),
        verdict=verdict,
        reason=reason,
        retry_of=retry_of,
        supersedes=marks.supersedes if marks else None,
        pair=marks.pair if marks else None,
        interrupted=interrupted,
        checks=recorder.checks,
        recoveries=recorder.recoveries,
        outcome=outcome,
        timeline=recorder.timeline,
        timing=Timing(
            started_at=started,
            ended_at=ended,
            wall_s=round(wall, 3),
            agent_run_s=conclusion.agent_run_s,
            harness_overhead_s=None if conclusion.agent_run_s is None else round(wall - conclusion.agent_run_s, 3),
            deadline_s=deadline.seconds,
            phases={phase: round(seconds, 3) for phase, seconds in recorder.phases.items()},
        ),
        accounting=conclusion.accounting,
        provenance=Provenance(
            source_revision=source_revision(),
            source_dirty=source_dirty(),
            harness_digest=harness_digest(),
            suite_definition_hash=suite_definition_hash(cell.suite),
            oracle_image=conclusion.oracle_image,
            evidence_mode=cell.evidence_mode,
            product=cell.environment.product,
            product_version=product_driver(cell.environment.product).version(),
            agent_clis=conclusion.agent_clis,
            node=settings.node,
        ),
        downloads=recorder.downloads,
        screenshots=recorder.screenshots,
        # Judged criteria are decided afterwards (harness judge): at the end of the run they are not judged.
        extra=settings.calibration_marks() | {f"criteria.{c.id}": "not_judged" for c in cell.case.criteria},
    )
    path = recorder.write(record)
    published = product_driver(cell.environment.product).published_assets()
    findings = recorder.withhold_secrets(known_secrets, secret_patterns, published)
    if findings:
        outcome = outcome.model_copy(update={"secret_found": describe(findings)})
        verdict, reason = verdict_of(outcome, record.checks, interrupted, record.recoveries)
        update: dict[str, Any] = {"verdict": verdict, "reason": reason, "outcome": outcome}
        if any(finding.path == path.name for finding in findings):
            # The record itself leaked: keep its shape, drop the free text that held the secret.
            update |= {"checks": [c.model_copy(update={"detail": "(withheld)"}) for c in record.checks], "timeline": []}
            path.with_name(path.name + ".withheld").unlink(missing_ok=True)
        record = record.model_copy(update=update)
        recorder.write(record)
    _write_index(recorder)
    return record


def _write_index(recorder: EvidenceRecorder) -> None:
    """The package's own index.html, from what was written and scanned; a page that cannot be made is logged,
    never the attempt's verdict (the report makes its pages again from the record)."""
    from harness.results.report.build import write_package_index  # Jinja2: only once an attempt ends

    try:
        write_package_index(recorder.folder)
    except Exception as error:  # noqa: BLE001  the record is written: nothing a reviewer needs is lost
        _log_error(recorder, error, "while writing index.html")
