"""The invariants judged over the watch's looks: a lasting break fails with its moment and screen, one torn read does
not, and held, not observable and sampled once are decided from the looks alone."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from harness.checks.invariants import NAMES
from harness.checks.lifecycle import DeliveryFacts, RunFacts, TaskFacts
from harness.checks.watch_samples import CONFIRM_S, Looks, SampledRecords, ShownBadge, WatchSample, watched_invariants
from harness.core.records import CheckRecord

EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
DONE = ["done"]


def look(
    second: float,
    task: str = "in_progress",
    run: str = "running",
    pid: int | None = None,
    **extra: object,
) -> WatchSample:
    """Task 1 with run 7 (its active run while the run is active), seen ``second`` seconds in."""
    active = run in ("queued", "running")
    records = SampledRecords(
        tasks=[TaskFacts(id="1", status=task, active_run_id="7" if active else None)],
        runs=[RunFacts(id="7", task_id="1", status=run, runner_instance_id="r", pid=pid, process_started_at=1.0)],
        messages=[],
        deliveries=extra.pop("deliveries", []),  # type: ignore[arg-type]
    )
    return WatchSample(at=EPOCH + timedelta(seconds=second), records=records, **extra)  # type: ignore[arg-type]


def by_id(checks: list[CheckRecord]) -> dict[str, CheckRecord]:
    return {check.id: check for check in checks}


def test_sound_looks_hold_every_invariant_naming_how_often_it_looked() -> None:
    checks = watched_invariants([look(0), look(1), look(2, "done", "succeeded")], DONE, None)
    assert [c.id for c in checks] == [f"invariant.{name}" for name in NAMES]
    assert all(c.passed for c in checks), checks
    assert by_id(checks)["invariant.done-while-active"].detail == "held in all 3 samples, 2 while a run was active"


def test_a_break_that_lasts_fails_once_with_its_moment_and_the_screen_kept_then() -> None:
    looks = [look(0), look(0.5, "done"), look(0.5 + CONFIRM_S, "done", screenshot="screenshots/03-x.png")]
    looks.append(look(3, "done"))
    check = by_id(watched_invariants(looks, DONE, None))["invariant.done-while-active"]
    assert check.failed and check.evidence == ["screenshots/03-x.png"]
    assert check.detail == "task 1 is done while run 7 is still running (seen at 2026-01-01T00:00:01.500+00:00)"
    assert [c.id for c in watched_invariants(looks, DONE, None)].count("invariant.done-while-active") == 1


def test_one_read_that_tears_across_a_write_is_no_break() -> None:
    checks = watched_invariants([look(0), look(0.5, "done"), look(2), look(3)], DONE, None)
    assert by_id(checks)["invariant.done-while-active"].passed


def test_events_count_at_once_the_page_badge_and_the_product_own_word_for_finished() -> None:
    swapped = [look(0, pid=10), look(0.5, pid=11)]
    assert by_id(watched_invariants(swapped, DONE, None))["invariant.runner-identity"].failed
    other = look(0, served={"3": "b" * 64}, deliveries=[DeliveryFacts(id="3", task_id="1", sha256="a" * 64)])
    bytes_check = by_id(watched_invariants([other, look(1)], DONE, None))["invariant.delivery-bytes"]
    assert bytes_check.failed and "serves bytes with sha256 bbbbbbbbbbbb, recorded aaaaaaaaaaaa" in bytes_check.detail
    badge = ShownBadge(task_id="1", status="in_review")
    shown = [look(0, badge=badge), look(CONFIRM_S, badge=badge)]
    assert by_id(watched_invariants(shown, DONE, None))["invariant.done-while-active"].passed
    page = by_id(watched_invariants(shown, ["in_review"], None))["invariant.done-while-active"]
    assert page.failed and "the page shows task 1 in_review while run 7 is still running" in page.detail


def test_too_few_looks_fail_and_looks_that_saw_no_work_are_not_observable() -> None:
    once = by_id(watched_invariants([look(0)], DONE, None))
    assert once["invariant.one-active-run"].failed and "sampled once" in once["invariant.one-active-run"].detail
    after = by_id(watched_invariants([look(0, "done", "succeeded"), look(1, "done", "succeeded")], DONE, None))
    assert (
        after["invariant.one-active-run"].unobservable == "none of the 2 samples saw a run active: nothing it is"
        " about was watched"
    )
    assert after["invariant.unread-count"].passed


def test_no_look_read_is_the_harness_never_looking_with_the_reason() -> None:
    never = watched_invariants([], DONE, None)
    assert all(c.harness_never_looked and not c.failed for c in never)
    failed_reads = [WatchSample(at=EPOCH, unreadable="ConnectError: refused")] * 2
    [first, *_] = watched_invariants(failed_reads, DONE, None)
    assert first.unobservable == (
        "the harness never looked: none of 2 sample(s) could be read (the last: ConnectError: refused)"
    )


def test_the_live_fold_says_when_the_looks_are_enough() -> None:
    looks = Looks(DONE, None)
    looks.look(look(0, "done", "succeeded"))
    looks.look(look(1, "done", "succeeded"))
    assert not looks.enough, "two looks, but none while a run was active"
    assert looks.look(look(2)) == [] and looks.enough


def test_a_page_badge_is_confirmed_over_the_looks_that_read_the_page() -> None:
    """A look between waits reads no page: it neither confirms nor clears what the page was last seen showing; a
    look that reads the page showing it right again does clear it."""
    wrong = ShownBadge(task_id="1", status="done")
    right = ShownBadge(task_id="1", status="in_progress")
    between = [look(0, badge=wrong), look(0.6), look(0.6 + CONFIRM_S, badge=wrong), look(3)]
    assert by_id(watched_invariants(between, DONE, None))["invariant.done-while-active"].failed
    cleared = [look(0, badge=wrong), look(0.6, badge=right), look(0.6 + CONFIRM_S, badge=wrong), look(3)]
    assert by_id(watched_invariants(cleared, DONE, None))["invariant.done-while-active"].passed


def test_a_break_first_seen_between_waits_takes_the_screen_kept_at_the_next_wait() -> None:
    looks = [look(0, "done"), look(CONFIRM_S, "done"), look(1.5, "done", screenshot="screenshots/04-x.png")]
    check = by_id(watched_invariants(looks, DONE, None))["invariant.done-while-active"]
    assert check.failed and check.evidence == ["screenshots/04-x.png"]
