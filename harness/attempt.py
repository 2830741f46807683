"""One attempt of one cell: run its story, classify the outcome, write the package.

This is where the verdict classes are decided, in one place: a story ends
with checks and possibly a StoryOutcome; anything unexpected is the
harness's or the machine's fault (infrastructure_failed), never the agent's.
"""

from __future__ import annotations

import importlib
import secrets as random_tokens
import traceback
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from harness.catalog import Cell, live_cell_unavailable_reason, suite_definition_hash
from harness.deadline import Deadline
from harness.evidence import EvidenceRecorder
from harness.provenance import harness_digest, source_dirty, source_revision
from harness.records import AttemptRecord, CellIdentity, Provenance, Timing, utc_now
from harness.secrets import secrets_from_environment
from harness.verdicts import StoryOutcome, Verdict


class RunSettings(BaseModel):
    """Everything a run needs besides the cells; each CLI flag of `harness run` is one field."""

    campaign: str
    results: Path = Path("results")
    max_automatic_retries: Literal[0, 1] = 0
    scripted_persona: str | None = None
    pace_s: float | None = None


def new_campaign_id() -> str:
    """Time-ordered and unique across machines, so merged results never collide."""
    return f"{datetime.now().strftime('%Y%m%dT%H%M%S')}-{random_tokens.token_hex(3)}"


def new_attempt_id(folder: Path) -> str:
    number = 1 + sum(1 for child in folder.iterdir() if child.is_dir()) if folder.is_dir() else 1
    return f"{number}-{random_tokens.token_hex(4)}"


Story = Callable[["object"], None]


def load_story(cell: Cell) -> Callable:
    return importlib.import_module(cell.case.story).story


class AttemptContext(BaseModel, arbitrary_types_allowed=True):
    """What a journey factory is handed to build the story's world."""

    cell: Cell
    settings: RunSettings
    recorder: EvidenceRecorder
    deadline: Deadline


def run_cell(cell: Cell, settings: RunSettings, open_journey: Callable) -> list[AttemptRecord]:
    """All attempts of a cell: one, plus at most one retry after an infrastructure failure."""
    attempts: list[AttemptRecord] = []
    for _ in range(1 + settings.max_automatic_retries):
        retry_of = attempts[-1].attempt if attempts else None
        attempts.append(run_attempt(cell, settings, open_journey, retry_of=retry_of))
        if attempts[-1].verdict is not Verdict.INFRASTRUCTURE_FAILED:
            break
    return attempts


def run_attempt(cell: Cell, settings: RunSettings, open_journey: Callable, retry_of: str | None = None) -> AttemptRecord:
    cell_folder = settings.results / settings.campaign / cell.execution_id
    attempt_id = new_attempt_id(cell_folder)
    recorder = EvidenceRecorder(cell_folder / attempt_id)
    started = utc_now()
    deadline = Deadline(cell.deadline_s)
    verdict, reason = Verdict.PASSED, ""
    provenance_extra: dict = {}
    known_secrets = secrets_from_environment()

    unavailable = live_cell_unavailable_reason(cell)
    if unavailable:
        verdict, reason = Verdict.SKIPPED, unavailable
    else:
        context = AttemptContext(cell=cell, settings=settings, recorder=recorder, deadline=deadline)
        try:
            with open_journey(context) as journey:
                try:
                    load_story(cell)(journey)
                finally:
                    provenance_extra = journey.conclude()
                    known_secrets |= journey.known_secrets()
        except StoryOutcome as outcome:
            verdict, reason = outcome.verdict, outcome.reason
        except Exception as error:  # the harness or the machine broke, not the agent
            (recorder.folder / "logs" / "harness-error.txt").write_text(traceback.format_exc())
            verdict, reason = Verdict.INFRASTRUCTURE_FAILED, f"{type(error).__name__}: {error}"
        except KeyboardInterrupt:
            recorder.note("interrupted", "Ctrl-C")
            _write(recorder, cell, settings, attempt_id, retry_of, Verdict.INFRASTRUCTURE_FAILED,
                   "interrupted by the user", started, deadline, {}, known_secrets)
            raise
        failed = recorder.failed_checks()
        if verdict is Verdict.PASSED and failed:
            verdict, reason = Verdict.FAILED, "failed checks: " + ", ".join(check.id for check in failed)
        elif failed and verdict is Verdict.FAILED:
            reason = f"{reason} (failed checks: {', '.join(check.id for check in failed)})"
    return _write(recorder, cell, settings, attempt_id, retry_of, verdict, reason, started, deadline,
                  provenance_extra, known_secrets)


def _write(
    recorder: EvidenceRecorder,
    cell: Cell,
    settings: RunSettings,
    attempt_id: str,
    retry_of: str | None,
    verdict: Verdict,
    reason: str,
    started: datetime,
    deadline: Deadline,
    conclusion: dict,
    known_secrets: dict[str, str],
) -> AttemptRecord:
    ended = utc_now()
    wall = (ended - started).total_seconds()
    agent_s = conclusion.get("agent_run_s")
    leak = recorder.withhold_secrets(known_secrets)
    if leak:
        verdict, reason = Verdict.FAILED, leak
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
        checks=recorder.checks,
        timeline=recorder.timeline,
        timing=Timing(
            started_at=started,
            ended_at=ended,
            wall_s=round(wall, 3),
            agent_run_s=agent_s,
            harness_overhead_s=None if agent_s is None else round(wall - agent_s, 3),
            deadline_s=deadline.seconds,
        ),
        accounting=conclusion.get("accounting") or {},
        provenance=Provenance(
            source_revision=source_revision(),
            source_dirty=source_dirty(),
            harness_digest=harness_digest(),
            suite_definition_hash=suite_definition_hash(cell.suite),
            oracle_image=conclusion.get("oracle_image"),
            evidence_mode=cell.evidence_mode,
        ),
        downloads=recorder.downloads,
        screenshots=recorder.screenshots,
        extra={"scripted_persona": settings.scripted_persona} if settings.scripted_persona else {},
    )
    text = record.model_dump_json(indent=2)
    for label, value in known_secrets.items():
        if len(value) >= 8 and value in text:
            text = text.replace(value, "[withheld]")
            record = AttemptRecord.model_validate_json(text).model_copy(
                update={"verdict": Verdict.FAILED, "reason": f"secret found in evidence: attempt.json holds a {label}"}
            )
            text = record.model_dump_json(indent=2)
    (recorder.folder / "attempt.json").write_text(text + "\n")
    return record
