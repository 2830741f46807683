"""A story's journey played on the in-memory fake product: no browser, no server, no Docker.

The journey's own steps (the task created and read back, the waits, the
downloads and their sha256, the read-backs and the lifecycle checks at the
end) run as they do on a real product; only the oracle's grade, which needs
the engine, is left out.
"""

from __future__ import annotations

from pathlib import Path

from harness.core.deadline import Deadline
from harness.core.settings import RunSettings
from harness.evidence.recorder import EvidenceRecorder
from harness.running.attempt import AttemptContext
from tests.fake_attempts import fake_cell, open_fake_journey, story


def play(tmp_path: Path, *defects: str) -> dict[str, bool]:
    """Build, download, ask for a revision, download again, conclude: each check's id and whether it passed."""
    recorder = EvidenceRecorder(tmp_path)
    context = AttemptContext(cell=fake_cell(), settings=RunSettings(), recorder=recorder, deadline=Deadline(60))
    with open_fake_journey(context, *defects) as journey:
        story(journey)
        journey.conclude()
    recorder.flush()
    return {check.id: check.passed for check in recorder.checks}


def test_a_healthy_journey_passes_every_check_it_records(tmp_path: Path) -> None:
    checks = play(tmp_path)
    assert {"delivery.build.sha256", "delivery.revision-differs", "lifecycle.messages-consumed"} <= set(checks)
    assert [check for check, passed in checks.items() if not passed] == []
    assert (tmp_path / "snapshots" / "tasks.json").is_file()


def test_a_run_without_a_cause_fails_the_journey_under_the_check_that_names_it(tmp_path: Path) -> None:
    checks = play(tmp_path, "run-without-cause")
    assert [check for check, passed in checks.items() if not passed] == ["lifecycle.runs-have-a-cause"]
