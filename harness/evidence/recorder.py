"""The evidence recorder: everything an attempt saw, written where a reviewer finds it.

Stories never build paths or JSON themselves; they tell the recorder what
happened and it lays out the package of DESIGN.md:
results/<campaign>/<execution-id>/<attempt>/.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from harness.core.records import (
    AttemptRecord,
    CheckRecord,
    DownloadRecord,
    Recovery,
    RecoveryKind,
    TimelineEvent,
    utc_now,
)
from harness.evidence.moments import API_CALLS, RECORD_SAMPLES, JsonLines
from harness.evidence.secret_scan import SecretFinding, scan_tree
from harness.evidence.thumbnails import make_thumbnail, packaged_thumbnail
from harness.judging.keeping import kept_checks, observation_of
from harness.judging.observations import OBSERVATIONS_FILE, Judgement, Observation, decided, filed_in

SUBFOLDERS = ("snapshots", "downloads", "oracle", "screenshots", "logs", "timeline")


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "step"


def _jsonable(data: Any) -> Any:
    if isinstance(data, BaseModel):
        return data.model_dump(mode="json")
    if isinstance(data, (list, tuple)):
        return [_jsonable(item) for item in data]
    if isinstance(data, dict):
        return {key: _jsonable(value) for key, value in data.items()}
    return data


class EvidenceRecorder:
    """Collects one attempt's evidence on disk as it happens, so a crash loses nothing."""

    def __init__(
        self,
        folder: Path,
        unobservable: Callable[[str], str | None] = lambda check_id: None,
        on_step: Callable[[str], None] = lambda step: None,
    ) -> None:
        """``unobservable`` says why a check id cannot be judged on this attempt's product (None: it can);
        ``on_step`` hears each timeline step and timed section as it begins (the terminal's progress line)."""
        self.folder = folder
        self.unobservable = unobservable
        self.on_step = on_step
        for name in SUBFOLDERS:
            (folder / name).mkdir(parents=True, exist_ok=True)
        self.checks: list[CheckRecord] = []
        self.recoveries: list[Recovery] = []
        self._observations: list[Observation] = []
        self.timeline: list[TimelineEvent] = []
        self.downloads: list[DownloadRecord] = []
        self.screenshots: list[str] = []
        self.phases: dict[str, float] = {}
        self.workspace_findings: list[SecretFinding] = []
        # Secrets the attempt itself made (a service credential it handed the product), scanned for like keys.
        self.known_secrets: dict[str, str] = {}
        self._thumbnailer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="thumbnails")
        self._thumbnails: list[Future[Any]] = []
        self.api_calls = JsonLines(folder / API_CALLS)
        self.record_samples = JsonLines(folder / RECORD_SAMPLES)

    def add_known_secret(self, label: str, value: str) -> None:
        """A value the package must never hold; the scan before writing fails the attempt if it does."""
        self.known_secrets[label] = value

    def relative(self, path: Path) -> str:
        return str(path.relative_to(self.folder))

    @contextmanager
    def timed(self, phase: str) -> Iterator[None]:
        """Add the time spent inside to ``phase``: the breakdown of the harness's own overhead."""
        self.on_step(phase)
        started = time.perf_counter()
        try:
            yield
        finally:
            self.phases[phase] = self.phases.get(phase, 0.0) + time.perf_counter() - started

    def note(self, step: str, detail: str = "", kind: str | None = None) -> None:
        self.timeline.append(TimelineEvent(step=step, detail=detail, kind=kind))
        self.on_step(step)

    def recovered(self, kind: RecoveryKind, detail: str) -> None:
        """The harness recovered its own infrastructure: kept in the package, so a pass after it reads as one."""
        self.recoveries.append(Recovery(kind=kind, detail=detail))
        self.note(f"recovered: {kind.value}", detail)

    @contextmanager
    def fault(self, step: str, detail: str = "") -> Iterator[None]:
        """Mark a fault the harness injects from its start to its end, so the timeline shows what overlapped it."""
        event = TimelineEvent(step=step, detail=detail, kind="fault")
        self.timeline.append(event)
        self.on_step(step)
        try:
            yield
        finally:
            event.until = utc_now()

    def check(self, check_id: str, passed: bool, detail: str = "", evidence: list[str] | None = None) -> CheckRecord:
        return self.keep(CheckRecord(id=check_id, passed=passed, detail=detail, evidence=evidence or []))

    def keep(self, record: CheckRecord) -> CheckRecord:
        """Keep a check the harness decided while it ran (see :meth:`observe`)."""
        [kept] = self.observe(decided([record]))
        return kept

    def observe(
        self, judgement: Judgement, evidence: Sequence[str] = (), promise: str | None = None
    ) -> list[CheckRecord]:
        """Keep a judgement's checks, each linked to ``evidence`` (and held to ``promise``), and what they came from.

        The observation is appended to the package at once, so a regrade
        judges exactly the checks this attempt kept, in the same order.
        """
        judgement = filed_in(judgement, self.folder)
        observation = observation_of(judgement, len(self._observations) + 1, list(evidence), promise)
        self._observations.append(observation)
        with (self.folder / OBSERVATIONS_FILE).open("a") as out:
            out.write(observation.model_dump_json() + "\n")
        kept = kept_checks(judgement.checks, observation, self.unobservable)
        for record in kept:
            self.checks.append(record)
            outcome = "passed" if record.passed else "not observable" if record.unobservable else "FAILED"
            self.note(f"check {record.id}", outcome if record.passed else f"{outcome}: {record.detail}", kind="check")
        return kept

    def failed_checks(self) -> list[CheckRecord]:
        return [check for check in self.checks if check.failed]

    def screenshot_path(self, step: str) -> Path:
        """A fresh, ordered file name for the screenshot of a decision point."""
        path = self.folder / "screenshots" / f"{len(self.screenshots) + 1:02d}-{_slug(step)}.png"
        self.screenshots.append(self.relative(path))
        self.note(f"screenshot {step}", self.relative(path), kind="screenshot")
        return path

    def thumbnail(self, screenshot: Path) -> None:
        """Make the reviewer's thumbnail while the PNG is hot (a report of a thousand attempts then only
        links thumbnails), in the background so the story does not wait for it; ``write`` waits."""
        self._thumbnails.append(self._thumbnailer.submit(make_thumbnail, (screenshot, packaged_thumbnail(screenshot))))

    def flush(self) -> None:
        """Wait for the background work (thumbnails): the package is complete before its record is written."""
        for pending in self._thumbnails:
            pending.result()
        self._thumbnails.clear()

    def snapshot(self, name: str, data: Any) -> str:
        path = self.folder / "snapshots" / f"{_slug(name)}.json"
        path.write_text(json.dumps(_jsonable(data), indent=2, sort_keys=True, default=str) + "\n")
        return self.relative(path)

    def download(self, phase: str, data: bytes) -> DownloadRecord:
        path = self.folder / "downloads" / f"{_slug(phase)}.zip"
        path.write_bytes(data)
        record = DownloadRecord(
            phase=phase, path=self.relative(path), sha256=hashlib.sha256(data).hexdigest(), size=len(data)
        )
        self.downloads.append(record)
        self.note(f"download {phase}", f"{record.size} bytes, sha256 {record.sha256}", kind="download")
        return record

    def oracle_result(self, download: DownloadRecord, mode: str, passed: bool, result: Mapping[str, Any]) -> str:
        path = self.folder / "oracle" / f"{_slug(download.phase)}.json"
        path.write_text(json.dumps(_jsonable(result), indent=2, sort_keys=True) + "\n")
        download.oracle_mode, download.oracle_passed, download.oracle_result = mode, passed, self.relative(path)
        return self.relative(path)

    def keep_file(self, source: Path, target: str) -> str | None:
        """Copy a file (a log, a trace) into the package when it exists."""
        if not source.is_file():
            return None
        destination = self.folder / target
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, destination)
        return self.relative(destination)

    def scan_workspaces(
        self, root: Path, known: Mapping[str, str], patterns: Mapping[str, re.Pattern[bytes]] | None = None
    ) -> list[SecretFinding]:
        """Scan the agents' workspaces on disk after the run; their findings fail the attempt like the package's.

        A key an agent wrote into its workspace but never delivered is still
        a leak: the folder is the product's, and the next run or a person
        reading it sees it. Nothing of it is copied into the package; the
        findings name the file and the kind, never the value.
        """
        if root.is_dir():
            found = scan_tree(root, known, patterns)
            self.workspace_findings += [f.model_copy(update={"path": f"agent workspace {f.path}"}) for f in found]
        return self.workspace_findings

    def withhold_secrets(
        self,
        known: Mapping[str, str],
        patterns: Mapping[str, re.Pattern[bytes]] | None = None,
        published: frozenset[str] = frozenset(),
    ) -> list[SecretFinding]:
        """Remove every file holding a secret and return the findings (file and kind, never the value).

        The offending file is deleted rather than redacted: a redaction that
        misses one encoding would still leak, and the finding fails the attempt.
        """
        findings = scan_tree(self.folder, known, patterns, published)
        for finding in findings:
            path = self.folder / finding.path.split("!", 1)[0]  # a secret inside an archive withholds the archive
            if path.exists():
                path.unlink()
                path.with_name(path.name + ".withheld").write_text(f"withheld: this file held a {finding.kind}\n")
        return findings + self.workspace_findings

    def write(self, record: AttemptRecord) -> Path:
        self.flush()
        path = self.folder / "attempt.json"
        path.write_text(record.model_dump_json(indent=2) + "\n")
        return path
