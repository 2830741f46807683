"""The timeline's readers on packages made here: a trace of a format version the reader does not know, record
samples that break a rule, a regraded package's newest assessment, and the screenshot diff's cache."""

from __future__ import annotations

import json
import zipfile
from datetime import timedelta
from pathlib import Path

from PIL import Image

from harness.checks.lifecycle import MessageFacts, RunFacts, TaskFacts
from harness.checks.watch_samples import SampledRecords, WatchSample
from harness.core.records import AttemptRecord, CheckRecord
from harness.core.verdicts import Verdict
from harness.evidence.moments import RECORD_SAMPLES, JsonLines, watch_samples
from harness.judging.regrade import Assessment, write_assessment
from harness.results.report.build import build_report
from harness.results.report.fixtures import EPOCH, SCRIPTED_CELL, write_attempt
from harness.results.report.screenshot_diff import diff_screenshots
from harness.results.report.timeline import build_timeline
from harness.results.report.trace_summary import cached_summary, summarize_trace


def trace_zip(path: Path, version: int) -> Path:
    events = [
        {"version": version, "type": "context-options", "wallTime": 1_000_000, "monotonicTime": 100.0},
        {
            "type": "before",
            "callId": "c1",
            "startTime": 150.0,
            "class": "Frame",
            "method": "click",
            "params": {"selector": "#go"},
        },
        {"type": "after", "callId": "c1", "endTime": 400.0},
        {"type": "console", "messageType": "error", "text": "boom", "time": 300.0},
        {"type": "console", "messageType": "log", "text": "fine", "time": 310.0},
    ]
    network = {
        "type": "resource-snapshot",
        "snapshot": {
            "startedDateTime": "1970-01-01T00:16:40.250Z",
            "time": 5,
            "request": {"method": "GET", "url": "http://x/a"},
            "response": {"status": 503},
        },
    }
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("trace.trace", "\n".join(json.dumps(e) for e in events))
        archive.writestr("trace.network", json.dumps(network))
    return path


def test_a_known_trace_version_gives_actions_console_errors_and_failed_requests(tmp_path: Path) -> None:
    summary = summarize_trace(trace_zip(tmp_path / "trace.zip", 8))
    assert summary.known and summary.note == ""
    kinds = [(item.kind, item.title, item.problem) for item in summary.items]
    assert kinds == [
        ("action", "Frame.click #go", False),
        ("console error", "boom", True),
        ("failed request", "GET http://x/a", True),
    ]
    action = summary.items[0]
    assert action.seconds == 0.25 and action.at.timestamp() == 1_000.05  # wall time + (start - monotonic)


def test_an_unknown_trace_version_says_so_and_still_reads_the_known_shapes(tmp_path: Path) -> None:
    summary = summarize_trace(trace_zip(tmp_path / "trace.zip", 99))
    assert not summary.known and "version 99" in summary.note and "show-trace" in summary.note
    assert len(summary.items) == 3
    (tmp_path / "not.zip").write_text("not a zip")
    assert "unreadable" in summarize_trace(tmp_path / "not.zip").note


def test_record_samples_become_changes_and_done_while_a_run_is_active_is_a_problem(tmp_path: Path) -> None:
    package = write_attempt(tmp_path, verdict=Verdict.PASSED, started_at=EPOCH)
    samples = JsonLines(package / RECORD_SAMPLES, exclude_none=False)
    states = [
        ("in_progress", "running", 0),
        ("in_progress", "running", 0),
        ("in_progress", "running", 1),
        ("done", "running", 1),
        ("done", "succeeded", 1),
    ]
    for second, (task, run, messages) in enumerate(states):
        records = SampledRecords(
            tasks=[TaskFacts(id="1", status=task)],
            runs=[RunFacts(id="7", task_id="1", status=run)],
            messages=[MessageFacts(id=str(n), task_id="1", body="b") for n in range(messages)],
        )
        samples.add(WatchSample(at=EPOCH + timedelta(seconds=second), records=records))
    samples.add(WatchSample(at=EPOCH + timedelta(seconds=9), unreadable="ConnectError: refused"))
    with (package / RECORD_SAMPLES).open("a") as torn:
        torn.write('{"at": "torn')
    record = AttemptRecord.model_validate_json((package / "attempt.json").read_text())
    timeline = build_timeline(package, record)
    changes = [(row.event.title, row.event.problem) for row in timeline.rows if row.event.lane == "record"]
    assert timeline.record_samples == 6  # the unreadable look counts, and shows no change; the torn line is none
    assert changes == [
        ("task 1 seen (in_progress)", False),
        ("run 7 started (running) on task 1", False),
        ("task 1: message stored (1 in all)", False),
        ("task 1: in_progress → done", False),
        ("task 1 reads done while run 7 is still active", True),
        ("run 7: running → succeeded", False),
    ]


def test_the_record_lane_drops_a_look_the_full_model_rejects_for_what_the_lane_shows(tmp_path: Path) -> None:
    """The lane reads the looks through a lighter projection than the judging code's :class:`WatchSample`: a look
    whose shown fields are malformed (a run without its status, a time that is no time) is dropped by both."""
    package = write_attempt(tmp_path, verdict=Verdict.PASSED, started_at=EPOCH)
    records = SampledRecords(tasks=[TaskFacts(id="1", status="todo")], runs=[], messages=[])
    good = WatchSample(at=EPOCH, records=records).model_dump(mode="json")
    no_status = WatchSample(at=EPOCH + timedelta(seconds=1), records=records).model_dump(mode="json")
    no_status["records"]["runs"] = [{"id": "7", "task_id": "1"}]
    no_time = {**good, "at": "yesterday"}
    lines = [json.dumps(line) for line in (good, no_status, no_time)]
    (package / RECORD_SAMPLES).parent.mkdir(parents=True, exist_ok=True)
    (package / RECORD_SAMPLES).write_text("\n".join(lines) + "\n")
    record = AttemptRecord.model_validate_json((package / "attempt.json").read_text())
    timeline = build_timeline(package, record)
    assert len(watch_samples(package)) == timeline.record_samples == 1
    assert [row.event.title for row in timeline.rows if row.event.lane == "record"] == ["task 1 seen (todo)"]


def regrade(package: Path, record: AttemptRecord, checks: list[CheckRecord]) -> None:
    """An assessment as `harness regrade` writes it, with these checks."""
    write_assessment(
        package,
        Assessment(
            rules_digest="r" * 64,
            based_on="attempt.json",
            verdict=Verdict.FAILED,
            reason="regraded",
            verdict_before=record.verdict,
            reason_before=record.reason,
            checks=checks,
        ),
    )


def test_the_newest_assessment_beside_attempt_json_decides_the_checks_shown(tmp_path: Path) -> None:
    package = write_attempt(tmp_path, verdict=Verdict.PASSED, started_at=EPOCH)
    record = AttemptRecord.model_validate_json((package / "attempt.json").read_text())
    regrade(package, record, record.checks)
    regrade(package, record, [*record.checks, CheckRecord(id="oracle.corrected", passed=False, detail="regraded")])
    timeline = build_timeline(package, record)
    assert timeline.checks_source.startswith("assessments/002-")
    assert [row.event.check_id for row in timeline.why] == ["oracle.corrected"]
    assert "placed at the end" in timeline.why[0].event.detail


def test_a_screenshot_pair_is_measured_once_and_then_read_from_the_cache(tmp_path: Path) -> None:
    a, b = tmp_path / "a.png", tmp_path / "b.png"
    Image.new("RGB", (100, 50), "white").save(a)
    changed = Image.new("RGB", (100, 50), "white")
    changed.paste((0, 0, 0), (10, 20, 30, 25))  # 20 x 5 pixels
    changed.save(b)
    first = diff_screenshots(a, b, tmp_path / "cache")
    assert first.changed_pixels == 100 and first.changed_pct == 2.0 and first.bbox == (10, 20, 30, 25)
    figures = tmp_path / "cache" / f"{first.image.removesuffix('.png')}.json"
    figures.write_text(first.model_copy(update={"changed_pixels": -1}).model_dump_json())
    assert diff_screenshots(a, b, tmp_path / "cache").changed_pixels == -1  # the pair's hashes found it
    Image.new("RGB", (100, 60), "white").save(b)  # taller: the strip only one covers counts as changed
    assert diff_screenshots(a, b, tmp_path / "cache").changed_pixels == 100 * 10


def test_a_trace_summary_is_kept_until_the_trace_changes(tmp_path: Path) -> None:
    trace = trace_zip(tmp_path / "trace.zip", 8)
    cache = tmp_path / "cache"
    first = cached_summary(trace, cache)
    (kept,) = cache.iterdir()
    kept.write_text(first.model_copy(update={"playwright": "from the cache"}).model_dump_json())
    assert cached_summary(trace, cache).playwright == "from the cache"
    trace_zip(trace, 99)  # rewritten: another size or time, so read again
    assert not cached_summary(trace, cache).known


def test_a_warm_build_renders_again_only_the_pages_whose_package_changed(tmp_path: Path) -> None:
    results, report = tmp_path / "results", tmp_path / "report"
    changed = write_attempt(results, "c1", SCRIPTED_CELL, "1-aaaa", Verdict.PASSED, started_at=EPOCH)
    write_attempt(results, "c1", SCRIPTED_CELL, "2-aaaa", Verdict.PASSED, started_at=EPOCH)
    build_report([results], report)
    pages = {page.name: page for page in (report / "attempts").rglob("*.html")}
    before = {name: page.stat().st_mtime_ns for name, page in pages.items()}
    record = AttemptRecord.model_validate_json((changed / "attempt.json").read_text())
    regrade(changed, record, [CheckRecord(id="oracle.corrected", passed=False, detail="regraded")])
    build_report([results], report)
    assert pages["2-aaaa.html"].stat().st_mtime_ns == before["2-aaaa.html"]  # kept as it was
    assert pages["1-aaaa.html"].stat().st_mtime_ns != before["1-aaaa.html"]
    assert "oracle.corrected" in pages["1-aaaa.html"].read_text()
    assert "oracle.corrected" in (report / "search.html").read_text()  # the kept page's search entries stay too
    assert "2-aaaa" in (report / "search.html").read_text()
