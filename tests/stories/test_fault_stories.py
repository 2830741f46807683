"""The fault stories end to end: the scripted cells through the real `harness run` (real product,
real Chromium, real oracle container), and the evidence each package must hold."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from calibration.personas import PERSONA_CASES
from harness.core.product_records import Receipt
from tests.needs import PLAYS_CELLS, marked
from tests.stories import shared_plays
from tests.stories.harness_runs import passed_by_case
from tests.stories.story_expectations import FAULT_STORIES as STORIES


@marked(*PLAYS_CELLS)
def test_every_fault_story_passes_with_the_scripted_agent_and_keeps_its_evidence(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Played once in the session (tests/stories/shared_plays.py): the timeline's tests read its recover-controller,
    and need no other of its cells to pass."""
    played = shared_plays.fault_stories(tmp_path_factory).every_cell_passed()
    for case, (record, package) in passed_by_case(played.results, len(STORIES), played.stdout).items():
        assert set(STORIES[case]["checks"]) <= {check.id for check in record.checks if check.passed}, case
        for name in STORIES[case]["snapshots"]:
            assert (package / "snapshots" / f"{name}.json").is_file(), f"{case}: missing snapshot {name}"
        assert (package / "trace.zip").is_file() and list((package / "screenshots").glob("*-final.png")), case
        assert record.accounting.run_count <= 12, case
        if case in RESTARTS:
            one_run_and_one_runner_throughout(package, STORIES[case]["snapshots"])
        if case == DRAIN:
            interrupted_then_retried_by_another_runner(package)
        if case == "stop-redirect":
            the_group_seen_before_stop_was_empty_after_it(package)


RESTARTS = ("recover-controller", "recover-controller-sigkill")
DRAIN = "recover-controller-drain"


def one_run_and_one_runner_throughout(package: Path, restart_snapshots: list[str]) -> None:
    """A restart's snapshots (before, after, final): another controller after it, but one run with one runner
    process throughout, whose receipts were only added to, each once."""
    moments = [json.loads((package / "snapshots" / f"{name}.json").read_text()) for name in restart_snapshots]
    assert len({m["controller_instance_id"] for m in moments}) == 2  # one controller before, another after
    assert len({(m["run"]["id"], m["run"]["pid"], m["run"]["process_start_time"]) for m in moments}) == 1
    # The harness's own looks at the process table: one running process before and after the restart, gone at the end.
    seen = [m["runner"] for m in moments]
    assert all(look["provenance"] == "harness" and look["source"] == "process-table" for look in seen)
    assert seen[0]["alive"] and seen[1]["alive"] and not seen[2]["alive"]
    assert seen[0]["pid"] == seen[1]["pid"] == moments[0]["run"]["pid"] and seen[0]["started"] == seen[1]["started"]
    before, final = moments[0]["run"]["receipts"], moments[2]["run"]["receipts"]
    assert final[: len(before)] == before and len({r["id"] for r in final}) == len(final)
    assert all(len(r["sha256"]) == 64 for r in final) and moments[0]["workspace"]


def interrupted_then_retried_by_another_runner(package: Path) -> None:
    """The drain's snapshots: another controller after it, the run under the signal recorded interrupted and its
    runner gone; the final task holds a later run, with a runner of its own, that read the late message."""
    before, after = (json.loads((package / "snapshots" / f"{name}.json").read_text()) for name in DRAIN_MOMENTS)
    task = json.loads((package / "snapshots" / "drain-final.json").read_text())
    assert before["controller_instance_id"] != after["controller_instance_id"]
    assert before["run"]["status"] == "running" and after["run"]["status"] == "failed"
    assert after["run"]["error_code"] == "interrupted_by_shutdown"
    retry = next(run for run in task["runs"] if run["id"] != before["run"]["id"])
    assert retry["status"] == "succeeded" and retry["identity"]["pid"] != before["run"]["pid"]
    late = str(before["message"]["id"])
    assert any(late in Receipt.model_validate(r).received_message_ids for r in retry["receipts"])


DRAIN_MOMENTS = ("drain-before", "drain-after")


def the_group_seen_before_stop_was_empty_after_it(package: Path) -> None:
    """The Stop's snapshot: the harness saw the runner working in its group just before Stop, and nothing of that
    group the moment the product said the run stopped."""
    stop = json.loads((package / "snapshots" / "stop.json").read_text())
    assert stop["runner"]["alive"] and stop["runner"]["group"] is not None and stop["runner"]["provenance"] == "harness"
    assert stop["looks"][0] == {"provenance": "harness", "source": "process-table", "at_s": 0.0, "members": []}


def test_each_fault_story_is_calibrated_with_the_personas_that_break_it() -> None:
    registered = {(c.case, c.persona): c.expected_check for c in PERSONA_CASES}
    assert registered[("delegate-feedback", "ignores-late-feedback")] == "oracle.child"
    assert registered[("delegate-feedback", "works-on-parent")] == "delegate.teammate-never-on-parent"
    assert registered[("delegate-feedback", "parent-before-child")] == "lifecycle.parent-after-child"
    assert registered[("late-feedback", "ignores-late-feedback")] == "oracle.final"
    assert registered[("recover-controller", "crashes-mid-run")] == "lifecycle.runs-succeeded"
    assert registered[("stop-redirect", "writes-after-stop")] == "stop.workspace-unchanged"
    assert registered[("stop-redirect", "forgets-nonce")] == "stop.reply-has-nonce"
    assert registered[("delegate-feedback", "uncited-report")] == "delegate.reply-cites-final-delivery"
    for case in STORIES:
        assert registered[(case, "default")] is None
