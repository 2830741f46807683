"""What each running attempt tells the terminal: it started, the step it is at, how it ended.

A cell runs in the process that runs pytest or in an xdist worker, and
pytest hands the controller nothing until an item is over. So every attempt
appends one JSON line per event to a file of its own process, in a folder
`harness run` names in ``PROGRESS_ENV`` (inside the run's labelled temporary
folder, never inside the results: a campaign folder holds packages only),
and the controller's board (``harness.running.board``) reads them as they
grow. Without the variable (a test calling a story directly) nothing is written.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from harness.core.records import AttemptRecord
from harness.results.explain import explain

PROGRESS_ENV = "EVERYDAY_EVALS_PROGRESS"
QUIET_STEPS = frozenset({"invariants", "screenshots"})
"""Timed sections entered at every wait or beside every screenshot's own step: they say nothing a person can use."""


class ProgressEvent(BaseModel):
    """One line of a progress file."""

    kind: Literal["start", "step", "end"]
    cell: str
    attempt: str
    at: float
    step: str = ""
    verdict: str = ""
    label: str = ""
    why: str = ""
    evidence: str = ""
    wall_s: float = 0.0


class AttemptProgress:
    """One attempt's voice on the terminal; silent when no board listens."""

    def __init__(self, cell: str, attempt: str) -> None:
        folder = os.environ.get(PROGRESS_ENV)
        self.path = Path(folder) / f"{os.getpid()}.jsonl" if folder else None
        self.cell, self.attempt = cell, attempt
        self._last_step = ""
        self._emit(ProgressEvent(kind="start", cell=cell, attempt=attempt, at=time.time()))

    def _emit(self, event: ProgressEvent) -> None:
        if self.path is None:
            return
        try:
            with self.path.open("a") as out:  # one short append per event: a reader never sees half a line for long
                out.write(event.model_dump_json() + "\n")
        except OSError:
            self.path = None  # the run folder is gone (the run is ending): the attempt plays on, unheard

    def step(self, name: str) -> None:
        """The step the attempt is at now (a timeline step or a timed section); repeats and quiet ones are dropped."""
        if name in QUIET_STEPS or name == self._last_step:
            return
        self._last_step = name
        self._emit(ProgressEvent(kind="step", cell=self.cell, attempt=self.attempt, at=time.time(), step=name))

    def ended(self, record: AttemptRecord, package: Path, label: str) -> None:
        """The verdict (``label``: the verdict as the terminal shows it), why, and where to look."""
        explanation = explain(record, package)
        self._emit(
            ProgressEvent(
                kind="end",
                cell=self.cell,
                attempt=self.attempt,
                at=time.time(),
                verdict=record.verdict.value,
                label=label,
                why=explanation.why,
                evidence=str(explanation.evidence),
                wall_s=record.timing.wall_s or 0.0,
            )
        )


class ProgressReader:
    """Reads the events every process appended to a progress folder since the last read, in the order written."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._offsets: dict[Path, int] = {}

    def read(self) -> list[ProgressEvent]:
        events: list[ProgressEvent] = []
        for path in sorted(self.folder.glob("*.jsonl")):
            offset = self._offsets.get(path, 0)
            try:
                with path.open("rb") as source:
                    source.seek(offset)
                    chunk = source.read()
            except OSError:
                continue
            whole = chunk[: chunk.rfind(b"\n") + 1]  # a line still being written is read next time
            self._offsets[path] = offset + len(whole)
            events += [ProgressEvent.model_validate_json(line) for line in whole.splitlines() if line.strip()]
        return sorted(events, key=lambda event: event.at)
