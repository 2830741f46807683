"""A story's journey played on the in-memory fake product: no browser, no server, no Docker.

The journey's own steps (the task created and read back, the waits, the
downloads and their sha256, the read-backs and the lifecycle checks at the
end) run as they do on a real product; only the oracle's grade, which needs
the engine, is left out.
"""

from __future__ import annotations

from pathlib import Path

from harness.checks.invariants import NAMES
from harness.checks.watch_samples import watched_invariants
from harness.core.deadline import Deadline
from harness.core.settings import RunSettings
from harness.evidence.moments import RECORD_SAMPLES, watch_samples
from harness.evidence.recorder import EvidenceRecorder
from harness.judging.observations import rule_path
from harness.judging.regrade import judge_observations, read_observations
from harness.running.attempt import AttemptContext
from tests.fake_attempts import fake_cell, open_fake_journey, story


def play(tmp_path: Path, *defects: str) -> dict[str, bool]:
    """Build, download, ask for a revision, download again, conclude: each check's id and whether it passed."""
    return {check.id: check.passed for check in played(tmp_path, *defects).checks}


def played(tmp_path: Path, *defects: str) -> EvidenceRecorder:
    """The journey of :func:`play`, played; its recorder, holding every check it kept."""
    recorder = EvidenceRecorder(tmp_path)
    context = AttemptContext(cell=fake_cell(), settings=RunSettings(), recorder=recorder, deadline=Deadline(60))
    with open_fake_journey(context, *defects) as journey:
        story(journey)
        journey.conclude()
    recorder.flush()
    return recorder


def test_a_healthy_journey_passes_every_check_it_records(tmp_path: Path) -> None:
    checks = play(tmp_path)
    assert {"delivery.build.sha256", "delivery.revision-differs", "lifecycle.messages-consumed"} <= set(checks)
    assert [check for check, passed in checks.items() if not passed] == []
    assert (tmp_path / "snapshots" / "tasks.json").is_file()


def test_the_invariants_are_judged_again_from_the_looks_the_package_keeps(tmp_path: Path) -> None:
    """The watch's looks are in the package once, in their own file; the invariants' rule call names that file, and
    judging the package's observations again gives every check as the journey kept it."""
    recorder = played(tmp_path)
    observations = read_observations(tmp_path)
    [watched] = [o for o in observations if o.rule == rule_path(watched_invariants)]
    assert watched.filed == {"samples": RECORD_SAMPLES} and "samples" not in watched.args
    assert len(watch_samples(tmp_path)) >= 2 and watched.origin == "product"
    again, missing, _, _ = judge_observations(observations, lambda check_id: None, tmp_path)
    assert again == recorder.checks and not missing
    assert {c.id for c in again if c.id.startswith("invariant.")} == {f"invariant.{name}" for name in NAMES}


def test_a_run_without_a_cause_fails_the_journey_under_the_check_that_names_it(tmp_path: Path) -> None:
    checks = play(tmp_path, "run-without-cause")
    assert [check for check, passed in checks.items() if not passed] == ["lifecycle.runs-have-a-cause"]
