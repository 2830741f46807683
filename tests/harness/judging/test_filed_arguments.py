"""A rule argument the package keeps in a file of its own: named by the rule call only when the file holds exactly
the items the rule was given, read back at regrade, and no evidence (never a pass) once the file is gone."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from harness.checks.lifecycle import RunFacts, TaskFacts
from harness.checks.watch_samples import SampledRecords, WatchSample, watched_invariants
from harness.evidence.moments import RECORD_SAMPLES, JsonLines
from harness.evidence.recorder import EvidenceRecorder
from harness.judging.observations import judge
from harness.judging.regrade import judge_observations, read_observations

EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


def looks() -> list[WatchSample]:
    records = SampledRecords(
        tasks=[TaskFacts(id="1", status="in_progress", active_run_id="7")],
        runs=[RunFacts(id="7", task_id="1", status="running")],
        messages=[],
    )
    return [WatchSample(at=EPOCH + timedelta(seconds=n), records=records) for n in range(3)]


def observed(folder: Path, kept: list[WatchSample], given: list[WatchSample]) -> EvidenceRecorder:
    """The package keeps ``kept`` in its samples file; the rule is given ``given``."""
    recorder = EvidenceRecorder(folder)
    file = JsonLines(folder / RECORD_SAMPLES, exclude_none=False)
    for sample in kept:
        file.add(sample)
    recorder.observe(judge(watched_invariants, given, ["done"], None).kept_in("samples", RECORD_SAMPLES))
    return recorder


def test_a_file_holding_exactly_the_items_is_named_and_read_back(tmp_path: Path) -> None:
    recorder = observed(tmp_path, looks(), looks())
    [observation] = read_observations(tmp_path)
    assert observation.filed == {"samples": RECORD_SAMPLES} and set(observation.args) == {"done_statuses", "observes"}
    again, missing, _, _ = judge_observations([observation], lambda check_id: None, tmp_path)
    assert again == recorder.checks and not missing and all(c.passed for c in again)


def test_a_file_that_differs_leaves_the_argument_in_the_call(tmp_path: Path) -> None:
    recorder = observed(tmp_path, looks()[:2], looks())
    [observation] = read_observations(tmp_path)
    assert not observation.filed and len(observation.args["samples"]) == 3
    (tmp_path / RECORD_SAMPLES).unlink()
    assert judge_observations([observation], lambda check_id: None, tmp_path)[0] == recorder.checks


def test_a_filed_argument_gone_from_the_package_is_no_evidence(tmp_path: Path) -> None:
    recorder = observed(tmp_path, looks(), looks())
    (tmp_path / RECORD_SAMPLES).write_text('{"at": "torn')
    again, missing, _, _ = judge_observations(read_observations(tmp_path), lambda check_id: None, tmp_path)
    assert missing == [c.id for c in recorder.checks] and all(c.failed for c in again)
    assert all(c.detail.startswith("no evidence: ") and "timeline/record-samples.jsonl" in c.detail for c in again)
