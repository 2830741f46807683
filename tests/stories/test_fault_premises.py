"""When the fault's premise is missed (the agent finished first), the journey never passes on the ZIP alone:
Stop asks for new work and stops that; a restart with no running job leaves the attempt unexercised.

These drive the real journey in-process (real product, real Chromium) so the premise can be missed on
purpose, by waiting for the agent to finish before injecting the fault.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.core import registry
from harness.core.deadline import Deadline
from harness.core.settings import RunSettings
from harness.core.verdicts import Unexercised
from harness.evidence.recorder import EvidenceRecorder
from harness.faults.restart import restart_controller
from harness.faults.stop import require_short_reply, stop_active_work
from harness.running.attempt import AttemptContext
from harness.running.journey import Journey
from harness.running.journey_factory import journey_factory
from oracle.tasks.slugify.contract import BUILD_TASK, BUILD_TASK_TITLE, REVISION_SEPARATOR, SOURCE_FILE, nonce_request


@pytest.fixture
def journey(browser: Any, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Journey]:
    case = request.param
    cell = next(
        c for c in registry.catalog().cells() if c.execution_id == f"everyday-workflows-scripted.scripted.local.{case}"
    )
    context = AttemptContext(
        cell=cell,
        settings=RunSettings(campaign="t", results=tmp_path),
        recorder=EvidenceRecorder(tmp_path / "attempt"),
        deadline=Deadline(120),
    )
    with journey_factory(browser)(context) as opened:
        yield opened


def failed(journey: Journey) -> list[str]:
    return [check.id for check in journey.evidence.checks if not check.passed]


@pytest.mark.parametrize("journey", ["stop-redirect"], indirect=True)
def test_stop_after_the_agent_finished_asks_for_new_work_and_stops_that(journey: Journey) -> None:
    task = journey.create_task(BUILD_TASK_TITLE, BUILD_TASK)
    journey.wait_until_finished(task, "the build")  # the premise is missed on purpose

    stopped = stop_active_work(journey, task, source=SOURCE_FILE, more_work=REVISION_SEPARATOR)
    assert journey.api.run(stopped.run_id).status == "cancelled"
    assert stopped.requests_for_work == 1 and journey.interrupted_run_ids == [stopped.run_id]
    after_stop = journey.record_workspace_hashes(task, "after stop")
    nonce = journey.fresh_nonce()
    journey.send_message(nonce_request(nonce))
    journey.wait_until_finished(task, "the short reply")
    require_short_reply(journey, task, stopped, nonce_request(nonce), nonce, unchanged_since=after_stop)
    journey.conclude()
    assert failed(journey) == []


@pytest.mark.parametrize("journey", ["recover-controller"], indirect=True)
def test_a_restart_after_the_run_finished_is_unexercised_not_passed(journey: Journey) -> None:
    task = journey.create_task(BUILD_TASK_TITLE, BUILD_TASK)
    finished = journey.wait_until_finished(task, "the build")
    with pytest.raises(Unexercised, match="finished before the SIGTERM restart"):
        restart_controller(journey, finished.runs[-1], signal.SIGTERM)
