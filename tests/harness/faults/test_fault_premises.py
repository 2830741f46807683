"""When the fault's premise is missed (the agent finished first), the journey never passes on the ZIP alone:
Stop asks for new work and stops that; a restart with no running job leaves the attempt unexercised.

The journey's own logic is under test, not a product's, so it plays on the in-memory fake product
(tests/fake_attempts.py), whose waits let the premise be missed on purpose: the build is waited out before the
fault. The stop and restart stories themselves are played end to end on the real products
(tests/stories/test_fault_stories.py).
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.core.deadline import Deadline
from harness.core.settings import RunSettings
from harness.core.verdicts import Unexercised
from harness.evidence.recorder import EvidenceRecorder
from harness.faults.restart import restart_controller
from harness.faults.stop import stop_active_work
from harness.running.attempt import AttemptContext
from harness.running.journey import Journey
from oracle.tasks.slugify.contract import BUILD_TASK, BUILD_TASK_TITLE, REVISION_SEPARATOR, SOURCE_FILE
from tests.fake_attempts import fake_cell, open_fake_journey


@pytest.fixture
def journey(tmp_path: Path) -> Iterator[Journey]:
    context = AttemptContext(
        cell=fake_cell(),
        settings=RunSettings(campaign="t", results=tmp_path),
        recorder=EvidenceRecorder(tmp_path / "attempt"),
        deadline=Deadline(120),
    )
    with open_fake_journey(context) as opened:
        yield opened


def test_stop_after_the_agent_finished_asks_for_new_work_and_stops_that(journey: Journey) -> None:
    task = journey.create_task(BUILD_TASK_TITLE, BUILD_TASK)
    built = journey.wait_until_finished(task, "the build")  # the premise is missed on purpose

    stopped = stop_active_work(journey, task, source=SOURCE_FILE, more_work=REVISION_SEPARATOR)
    assert stopped.run_id != built.runs[-1].id and journey.api.run(stopped.run_id).status == "cancelled"
    assert stopped.requests_for_work == 1 and journey.interrupted_run_ids == [stopped.run_id]
    assert stopped.looks[0].members == [] and [m.body for m in journey.api.task(task.id).user_messages()] == [
        REVISION_SEPARATOR
    ]


def test_a_restart_after_the_run_finished_is_unexercised_not_passed(journey: Journey) -> None:
    task = journey.create_task(BUILD_TASK_TITLE, BUILD_TASK)
    finished = journey.wait_until_finished(task, "the build")
    with pytest.raises(Unexercised, match="finished before the SIGTERM restart"):
        restart_controller(journey, finished.runs[-1], signal.SIGTERM)
