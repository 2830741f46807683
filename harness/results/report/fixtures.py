"""Realistic attempt packages made on demand, for the report's tests and its benchmark.

They are written through the real EvidenceRecorder and AttemptRecord, so a
change to the package layout changes the fixtures too; screenshots are real
PNGs (Pillow) and downloads real ZIPs, because the report reads both.
"""

from __future__ import annotations

import io
import json
import zipfile
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from harness.core import registry
from harness.core.catalog import suite_definition_hash
from harness.core.records import Accounting, AttemptRecord, CellIdentity, CheckRecord, Provenance, Recovery, Timing
from harness.core.verdicts import EvidenceMode, Verdict
from harness.evidence.recorder import EvidenceRecorder
from harness.results.packages import catalog_cells

REVISION = "1" * 40
DIGEST = "d" * 64
EPOCH = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
SCRIPTED_CELL = "everyday-workflows-scripted.scripted.local.build-revise"
LIVE_CELL = "everyday-workflows.runner-codex.local.build-revise"


@cache
def screenshot_png(shade: int, size: tuple[int, int] = (1280, 900)) -> bytes:
    """A screenshot-like PNG: a header bar and rows of text, so it compresses like a real one."""
    image = Image.new("RGB", size, (250, 250, 250))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, size[0], 56), fill=(40, 60 + shade % 150, 120))
    for row in range(1, size[1] // 32):
        draw.text((24, 40 + row * 28), f"comment {row}: the agent replied with delivery {shade}", fill=(30, 30, 30))
    out = io.BytesIO()
    image.save(out, "PNG", compress_level=1)
    return out.getvalue()


def delivery_zip(phase: str) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("tool/README.md", f"# {phase}\n")
        archive.writestr("tool/slug.py", "def slug(text):\n    return '-'.join(text.split())\n")
        archive.writestr("tool/test_slug.py", "from slug import slug\n")
    return out.getvalue()


def _tasks_snapshot(cost_cents: int) -> list[dict[str, Any]]:
    run = {
        "id": 1,
        "task_id": 1,
        "agent_id": 1,
        "status": "succeeded",
        "cost_cents": cost_cents,
        "error_code": None,
        "identity": {"runner_instance_id": "runner-1", "pid": 4242, "process_start_time": 1.5},
        "queued_at": "2026-11-01T09:00:00Z",
        "started_at": "2026-11-01T09:00:01Z",
        "ended_at": "2026-11-01T09:00:09Z",
        "receipts": [
            {
                "id": "r1",
                "seq": 1,
                "tool": "write_file",
                "target": "tool/slug.py",
                "ok": True,
                "detail": "",
                "created_at": "2026-11-01T09:00:05Z",
            }
        ],
    }
    return [
        {
            "id": 1,
            "title": "Build the slug tool",
            "status": "done",
            "assignee_id": 1,
            "assignee_name": "Avery",
            "parent_id": None,
            "updated_at": "2026-11-01T09:00:09Z",
            "body": "Build a slug tool.",
            "comments": [
                {
                    "id": 1,
                    "task_id": 1,
                    "author_kind": "user",
                    "agent_id": None,
                    "author_name": "you",
                    "run_id": None,
                    "body": "Please add a separator option.",
                    "created_at": "2026-11-01T09:00:10Z",
                    "consumed_by_run_id": 1,
                    "consumed_at": "2026-11-01T09:00:11Z",
                },
                {
                    "id": 2,
                    "task_id": 1,
                    "author_kind": "agent",
                    "agent_id": 1,
                    "author_name": "Avery",
                    "run_id": 1,
                    "body": "Done: separator added.",
                    "created_at": "2026-11-01T09:00:20Z",
                    "consumed_by_run_id": None,
                    "consumed_at": None,
                },
            ],
            "runs": [run],
            "deliveries": [
                {
                    "id": 1,
                    "task_id": 1,
                    "run_id": 1,
                    "sha256": "0" * 64,
                    "size": 321,
                    "files": ["tool/slug.py"],
                    "created_at": "2026-11-01T09:00:09Z",
                    "download_url": "/api/deliveries/1/download",
                }
            ],
            "children": [],
            "active_run_id": None,
            "unconsumed_user_messages": 0,
        }
    ]


def _identity(execution_id: str) -> CellIdentity:
    suite, profile, environment, case = execution_id.split(".")
    return CellIdentity(execution_id=execution_id, suite=suite, profile=profile, environment=environment, case=case)


def _suite_hash(suite: str) -> str:
    found = [s for s in registry.catalog().suites if s.name == suite]
    return suite_definition_hash(found[0]) if found else "0" * 64


def write_attempt(
    results: Path,
    campaign: str = "c1",
    execution_id: str = SCRIPTED_CELL,
    attempt: str = "1-aaaa",
    verdict: Verdict = Verdict.PASSED,
    reason: str = "",
    started_at: datetime | None = None,
    source_revision: str = REVISION,
    source_dirty: bool = False,
    harness_digest: str = DIGEST,
    retry_of: str | None = None,
    screenshots: int = 2,
    phases: tuple[str, ...] = ("build", "revision"),
    extra: dict[str, Any] | None = None,
    cost_cents: int = 0,
    agent_reported_cost_usd: float | None = None,
    recoveries: tuple[Recovery, ...] = (),
    also_checks: tuple[CheckRecord, ...] = (),
) -> Path:
    """Write one complete package and return its folder (``also_checks``: kept after the usual ones)."""
    recorder = EvidenceRecorder(results / campaign / execution_id / attempt)
    started = started_at or EPOCH
    for number in range(screenshots):
        shot = recorder.screenshot_path(f"step {number + 1}")
        shot.write_bytes(screenshot_png(number * 37 + len(attempt)))
        recorder.thumbnail(shot)
    for phase in phases:
        download = recorder.download(phase, delivery_zip(phase))
        passed = verdict is not Verdict.FAILED
        checks = [
            {"id": "structure.readme", "passed": True, "detail": "README.md present"},
            {
                "id": "behaviour.separator",
                "passed": passed,
                "detail": "separator honoured" if passed else "trailing separator",
            },
        ]
        recorder.oracle_result(
            download, phase, passed, {"passed": passed, "mode": phase, "checks": checks, "image": "sha256:0racle"}
        )
        recorder.check(f"oracle.{phase}", passed, "graded", [download.path, download.oracle_result or ""])
    tasks = recorder.snapshot("tasks", _tasks_snapshot(cost_cents))
    recorder.snapshot(
        "activity",
        [
            {
                "id": 1,
                "at": "2026-11-01T09:00:00Z",
                "kind": "task.created",
                "task_id": 1,
                "run_id": None,
                "message": "created",
            }
        ],
    )
    recorder.check("lifecycle.tasks-done", verdict is not Verdict.FAILED, "every task done", [tasks])
    for check in also_checks:
        recorder.keep(check)
    (recorder.folder / "trace.zip").write_bytes(delivery_zip("trace"))
    (recorder.folder / "logs" / "controller.log").write_text("controller started\n")
    cell = catalog_cells().get(execution_id)
    mode = cell.evidence_mode if cell else EvidenceMode.SCRIPTED
    record = AttemptRecord(
        campaign=campaign,
        attempt=attempt,
        cell=_identity(execution_id),
        verdict=verdict,
        reason=reason,
        retry_of=retry_of,
        checks=recorder.checks,
        recoveries=list(recoveries),
        timeline=recorder.timeline,
        timing=Timing(
            started_at=started,
            ended_at=started + timedelta(seconds=42),
            wall_s=42.0,
            agent_run_s=30.0,
            harness_overhead_s=12.0,
            deadline_s=120,
        ),
        accounting=Accounting(cost_cents=cost_cents, run_count=1, agent_reported_cost_usd=agent_reported_cost_usd),
        provenance=Provenance(
            source_revision=source_revision,
            source_dirty=source_dirty,
            harness_digest=harness_digest,
            suite_definition_hash=_suite_hash(execution_id.split(".")[0]),
            oracle_image="sha256:0racle",
            evidence_mode=mode,
            product=cell.environment.product if cell else None,
        ),
        downloads=recorder.downloads,
        screenshots=recorder.screenshots,
        extra=extra or {},
    )
    recorder.write(record)
    return recorder.folder


def write_broken(results: Path, campaign: str, execution_id: str, attempt: str, attempt_json: str | None) -> Path:
    """A package cut short: no attempt.json (None) or the given text in its place."""
    folder = results / campaign / execution_id / attempt
    (folder / "screenshots").mkdir(parents=True, exist_ok=True)
    if attempt_json is not None:
        (folder / "attempt.json").write_text(attempt_json)
    return folder


def unknown_schema_json() -> str:
    return json.dumps({"schema_version": 99, "campaign": "c1", "verdict": "passed"})
