"""The invariant watch looks between the story's waits too: a run that lives only while the story does something
else is still watched, a rule first seen broken there gets its screen at the next wait, and an error met there ends
the story at that wait."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from harness.core.product_records import Run, RunIdentity, Task, TaskSummary
from harness.core.waiting import wait_for
from harness.evidence.recorder import EvidenceRecorder
from harness.running.watch import InvariantWatch

INTERVAL_S = 0.02


class _Product:
    """One task whose state the test sets; its API answers from it, from any thread."""

    moves_only_when_read = False

    def __init__(self) -> None:
        self.status, self.run_status, self.error = "todo", "", None
        self._lock = threading.Lock()

    def set(self, status: str, run_status: str = "") -> None:
        with self._lock:
            self.status, self.run_status = status, run_status

    def tasks(self) -> list[TaskSummary]:
        if self.error is not None:
            raise self.error
        return [self.task("t1")]

    def task(self, task_id: str) -> Task:
        with self._lock:
            status, run_status = self.status, self.run_status
        runs = [_run(run_status)] if run_status else []
        active = "r1" if run_status == "running" else None
        return Task(
            id=task_id,
            title="t",
            status=status,
            assignee_id="a1",
            assignee_name="Avery",
            parent_id=None,
            updated_at="2026-12-07T00:00:00Z",
            body="b",
            comments=[],
            runs=runs,
            deliveries=[],
            children=[],
            active_run_id=active,
            unconsumed_user_messages=0,
        )


def _run(status: str) -> Run:
    identity = RunIdentity(runner_instance_id="i1", pid=7, process_start_time=1.0)
    return Run(
        id="r1",
        task_id="t1",
        agent_id="a1",
        status=status,
        identity=identity,
        queued_at="2026-12-07T00:00:00Z",
        started_at="2026-12-07T00:00:00Z",
        ended_at=None if status == "running" else "2026-12-07T00:00:01Z",
        cost_cents=0,
        error_code=None,
        terminal=None,
        process_group_gone=None,
        receipts=[],
    )


def _watch(tmp_path: Path, product: _Product) -> tuple[InvariantWatch, EvidenceRecorder]:
    recorder = EvidenceRecorder(tmp_path / "attempt")
    shoot = lambda step: recorder.screenshots.append(f"screenshots/{step}.png")  # noqa: E731
    return InvariantWatch(product, recorder, shoot, interval_s=INTERVAL_S), recorder  # type: ignore[arg-type]


def _checks(recorder: EvidenceRecorder) -> dict[str, tuple[bool, str | None, list[str]]]:
    return {c.id: (c.passed, c.unobservable, c.evidence) for c in recorder.checks}


def _a_run_lives_and_ends(watch: InvariantWatch, product: _Product) -> None:
    """A run starts and ends while the story never waits: only a look between waits can see it."""
    product.set("in_progress", "running")
    wait_for(lambda: any(s.records and s.records.runs for s in watch.samples), timeout=30, what="a look at the run")
    product.set("done", "succeeded")


def test_a_run_between_the_waits_is_watched(tmp_path: Path) -> None:
    product = _Product()
    watch, recorder = _watch(tmp_path, product)
    with watch.between_waits():
        _a_run_lives_and_ends(watch, product)
    watch.conclude()
    checks = _checks(recorder)
    assert checks["invariant.one-active-run"][0], checks
    assert checks["invariant.done-while-active"][0], checks


def test_premise_without_looks_between_waits_the_run_goes_unwatched(tmp_path: Path) -> None:
    product = _Product()
    watch, recorder = _watch(tmp_path, product)
    product.set("in_progress", "running")
    product.set("done", "succeeded")
    watch.sample()  # the story's first wait finds the work over
    watch.conclude()
    passed, unobservable, _ = _checks(recorder)["invariant.one-active-run"]
    assert not passed and unobservable and "saw a run active" in unobservable


def test_a_rule_first_seen_broken_between_waits_gets_its_screen_at_the_next_wait(tmp_path: Path) -> None:
    product = _Product()
    watch, recorder = _watch(tmp_path, product)
    with watch.between_waits():
        product.set("done", "running")
        wait_for(lambda: watch.looks.broken, timeout=30, what="the broken rule to last")
        assert not recorder.screenshots, "the thread between waits never touches the browser"
        watch.sample()  # the story's next wait
    watch.conclude()
    shot = "screenshots/invariant done-while-active broken.png"
    assert recorder.screenshots == [shot]
    passed, _, evidence = _checks(recorder)["invariant.done-while-active"]
    assert not passed and shot in evidence


def test_an_error_between_waits_ends_the_story_at_its_next_wait(tmp_path: Path) -> None:
    product = _Product()
    product.error = ValueError("a record that breaks its contract")
    watch, _ = _watch(tmp_path, product)
    with watch.between_waits():
        wait_for(lambda: watch._failed is not None, timeout=30, what="the failed look")
        with pytest.raises(ValueError, match="breaks its contract"):
            watch.sample()


def test_no_thread_on_a_product_that_moves_only_when_read(tmp_path: Path) -> None:
    product = _Product()
    product.moves_only_when_read = True
    watch, _ = _watch(tmp_path, product)
    with watch.between_waits():
        assert not any(thread.name == "invariant-watch" for thread in threading.enumerate())
    assert not watch.samples
