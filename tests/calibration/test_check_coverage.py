"""Every check id the harness can emit has a played calibration row that fails on it (read from the code)."""

from __future__ import annotations

from pathlib import Path

import pytest

from calibration.coverage import (
    TEMPLATES,
    calibration_rows,
    catalog_check_ids,
    check_families,
    emitted_check_ids,
    families,
    scan,
    source_files,
    source_packages,
    story_phases,
    uncalibrated,
    unknown_templates,
)


@pytest.fixture(scope="module")
def emitted() -> set[str]:
    """Read from the code once for the module: the scan walks every source file's syntax tree."""
    return emitted_check_ids()


def test_every_check_id_the_harness_can_emit_has_a_calibration_row_that_fails_on_it(emitted: set[str]) -> None:
    missing = uncalibrated(emitted, calibration_rows())
    assert missing == [], f"no product defect, persona or replay script fails on: {', '.join(missing)}"


def test_the_code_builds_ids_only_from_templates_the_collector_expands() -> None:
    assert unknown_templates() == set(), "add the template to calibration.coverage.TEMPLATES with what it expands to"


def test_the_catalog_names_only_checks_the_harness_emits(emitted: set[str]) -> None:
    assert catalog_check_ids() - emitted == set()


def test_the_collection_reaches_every_family_and_the_per_phase_ids(emitted: set[str]) -> None:
    assert story_phases() >= {"build", "revision", "child", "final", "first", "second"}
    assert {"delivery.revision.sha256", "oracle.first", "invariant.unread-count", "lifecycle.settled"} <= emitted
    assert {
        "expect.task-finished",
        "skill.sidebar-opens-created",
        "restart.same-run",
        "metering.calls-metered",
    } <= emitted
    assert not any(check.endswith((".json", ".log", ".zip")) for check in emitted)


def test_the_scan_finds_ids_however_they_are_written(tmp_path: Path) -> None:
    source = tmp_path / "checks.py"
    source.write_text(
        "NAMED = 'stop.process-group-gone'\n"
        "CheckRecord(id='gateway.reply-has-marker', passed=True)\n"
        "helper(check_id='restart.same-run')\n"
        "recorder.check(f'delivery.{phase}.sha256', ok)\n"
        "recorder.check(f'oracle.{download.phase}', ok)\n"
        "path = 'attempt.json'; logger = 'harness.running.plugin'; sentence = f'stop. {x}'\n"
        "detail = f'run {run.id} is still {status}'\n"
    )
    literals, templates = scan([source], frozenset({"stop", "gateway", "restart", "delivery", "oracle"}))
    assert literals == {"stop.process-group-gone", "gateway.reply-has-marker", "restart.same-run"}
    assert templates == {"delivery.{}.sha256", "oracle.{}"} and templates <= TEMPLATES.keys()


def test_the_families_are_read_from_what_the_code_hands_to_whatever_emits_a_check(tmp_path: Path) -> None:
    source = tmp_path / "emitters.py"
    source.write_text(
        "PAUSED = 'budget.run-paused'\n"
        "class Unmet(Exception):\n"
        "    def __init__(self, check_id, reason): ...\n"
        "def fail(journey, check_id, detail): ...\n"
        "def check_id(name): return f'expect.{name}'\n"
        "CheckRecord(id=PAUSED, passed=False)\n"
        "CheckRecord(id=f'oracle.{phase}', passed=True)\n"
        "fail(journey, 'hire.one-agent', 'two')\n"
        "raise Unmet('gateway.marker', 'none')\n"
        "logging.getLogger('harness.running')\n"
        "failpoint('stop.signal', True)\n"
        "open('delivery.zip')\n"
    )
    assert check_families([source]) == {"budget", "oracle", "hire", "gateway", "expect"}
    literals, _ = scan([source], frozenset({"budget", "stop", "delivery"}))
    assert literals == {"budget.run-paused"}  # a failpoint's name and a file's name are no check ids


def test_the_sources_are_found_through_the_entry_points_plug_ins_included() -> None:
    packages = source_packages()
    assert {"harness", "stories", "everyday_paperclip", "everyday_vibe_kanban", "everyday_example"} <= packages.keys()
    files = source_files()
    assert any("everyday_paperclip" in path.parts for path in files)
    assert not any("findings" in path.parts[:-1] or "tests" in path.parts for path in files)
    assert {"drain", "restart", "lifecycle", "oracle", "expect", "invariant", "stop", "ui"} <= families()


DRAIN_CHECKS = ("drain.run-interrupted", "drain.work-retried", "drain.message-received", "drain.delivered-once")


def test_nothing_is_excused_the_drain_and_acting_once_are_played_on_the_testbed(emitted: set[str]) -> None:
    """Once excused as not playable here: each is now the expected failure of a played testbed row."""
    played = {check for label, checks in calibration_rows() if label.startswith("product-defects") for check in checks}
    assert {"lifecycle.messages-acted-once", *DRAIN_CHECKS} <= played
    assert set(DRAIN_CHECKS) <= emitted


ROWS = calibration_rows()
SOLE = [
    (label, checks)
    for index, (label, checks) in enumerate(ROWS)
    if uncalibrated(checks, ROWS[:index] + ROWS[index + 1 :])
]


def test_some_rows_are_the_only_calibration_of_a_check() -> None:
    assert len(SOLE) > 20  # so the next test proves the coverage test fails when a row goes


@pytest.mark.parametrize(("label", "checks"), SOLE, ids=[label for label, _ in SOLE])
def test_removing_a_row_fails_the_coverage_on_the_checks_only_it_calibrates(
    label: str, checks: tuple[str, ...], emitted: set[str]
) -> None:
    without = [row for row in ROWS if row[0] != label]
    only_here = uncalibrated(checks, without)
    assert only_here and set(only_here) <= set(uncalibrated(emitted, without))
