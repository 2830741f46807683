"""Saved packages made by hand for the judge tests: exactly what a judged story leaves on disk, nothing run."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from harness.core.records import AttemptRecord, CellIdentity, Provenance, Timing
from harness.core.verdicts import EvidenceMode, Verdict

CAMPAIGN = "c1"
CELL = "everyday-workflows-scripted.scripted.local.service-decline"


def decline_package(results: Path, reply: str | None, attempt: str = "1-aaaa") -> Path:
    """A service-decline package whose agent replied ``reply`` after the decline (None: no reply kept)."""
    package = results / CAMPAIGN / CELL / attempt
    (package / "snapshots").mkdir(parents=True)
    if reply is not None:
        grade = {"interaction_id": 1, "reply": reply, "reply_run_id": 1, "settling_run_id": 1}
        (package / "snapshots" / "decline-grade.json").write_text(json.dumps(grade, indent=2))
    suite, profile, environment, case = CELL.split(".")
    record = AttemptRecord(
        campaign=CAMPAIGN,
        attempt=attempt,
        cell=CellIdentity(execution_id=CELL, suite=suite, profile=profile, environment=environment, case=case),
        verdict=Verdict.PASSED,
        timing=Timing(started_at=datetime(2026, 1, 1, tzinfo=UTC), deadline_s=90),
        provenance=Provenance(
            source_revision="0" * 40,
            source_dirty=False,
            harness_digest="d",
            suite_definition_hash="h",
            evidence_mode=EvidenceMode.SCRIPTED,
        ),
    )
    (package / "attempt.json").write_text(record.model_dump_json(indent=2))
    return package
