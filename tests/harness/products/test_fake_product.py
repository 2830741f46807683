"""The in-memory fake product: a build and a revision on plain objects, graded by the real checks and recorder.

Each defect the fake plays fails exactly the check that names it, so a check
test needs no testbed, browser or server.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.checks.facts import lifecycle_facts
from harness.checks.lifecycle import grade_lifecycle
from harness.core.product_records import Task
from harness.evidence.recorder import EvidenceRecorder
from harness.products.fake import DRIVER, FakeInstance
from harness.products.fake.world import UnknownDefect
from harness.running.readbacks import settings_now

REVISION = "Please also strip accents."


def build_and_revise(*defects: str) -> tuple[FakeInstance, list[Task]]:
    """A person's journey on the fake: hire, create the task, wait for done, ask for a revision, let it settle."""
    instance = DRIVER.start_instance(0.0, defects=defects)
    lead = instance.api.create_agent("Avery", "lead engineer")
    page = DRIVER.task_list(None, instance.base_url).open().create_task("Build slugify", "A slug tool", lead.name)
    page.wait_until_status("done")
    page.send_message(REVISION)
    instance.world.settle()
    return instance, [instance.api.task(summary.id) for summary in instance.api.tasks()]


def failed(tasks: list[Task]) -> list[str]:
    facts = lifecycle_facts(tasks, [REVISION], [], tasks[0].assignee_id, max_runs=10)
    return [check.id for check in grade_lifecycle(facts) if not check.passed]


def test_a_healthy_build_and_revision_passes_every_lifecycle_check() -> None:
    _, tasks = build_and_revise()
    assert [run.cause for run in tasks[0].runs] == ["assignment", "user_message"]
    assert len(tasks[0].deliveries) == 2 and failed(tasks) == []


@pytest.mark.parametrize(
    ("defect", "named"),
    [
        ("drop-message", ["lifecycle.messages-consumed", "lifecycle.no-pending-bookkeeping"]),
        ("run-without-cause", ["lifecycle.runs-have-a-cause"]),
    ],
)
def test_each_defect_fails_the_check_that_names_it(defect: str, named: list[str]) -> None:
    _, tasks = build_and_revise(defect)
    assert failed(tasks) == named


def test_a_defect_the_fake_cannot_play_is_refused() -> None:
    with pytest.raises(UnknownDefect, match="no defect slow-download"):
        DRIVER.start_instance(0.0, defects=["slow-download"])


def test_stop_cancels_the_run_and_its_process_group_is_gone_at_once() -> None:
    instance = DRIVER.start_instance(0.0)
    instance.api.create_agent("Avery")
    page = DRIVER.task_list(None, instance.base_url).create_task("Build", "A slug tool")
    page.wait_until_status("in_progress")
    run = instance.world.task(page.task_id).runs[-1]  # read without a step: the run is still running
    assert page.click_stop(run.id) and not page.click_stop(run.id)
    stopped = instance.api.run(run.id)
    assert (stopped.status, stopped.process_group_gone) == ("cancelled", True)


def test_a_controller_restart_is_a_new_instance_id_and_the_work_goes_on() -> None:
    instance = DRIVER.start_instance(0.0)
    before = instance.api.controller().instance_id
    instance.stop_controller()
    assert instance.start().api.controller().instance_id != before


def test_the_recorder_keeps_the_fakes_records_as_they_read_back(tmp_path: Path) -> None:
    instance, tasks = build_and_revise()
    recorder = EvidenceRecorder(tmp_path)
    kept = recorder.snapshot("tasks", tasks)
    download = recorder.download("revision", instance.api.delivery_bytes(tasks[0].deliveries[-1].id))
    read_back = [Task.model_validate(raw) for raw in json.loads((tmp_path / kept).read_text())]
    assert read_back == tasks
    assert download.sha256 == tasks[0].deliveries[-1].sha256


def test_the_settings_read_back_on_a_product_without_services() -> None:
    """Every step's read-back of the settings it must leave alone works on a product that has no connections."""
    instance, _ = build_and_revise()
    settings = settings_now(instance.api)
    assert settings == settings_now(instance.api) and "Avery" in str(settings)


def test_a_closed_fake_leaves_no_data_folder_behind() -> None:
    instance = DRIVER.start_instance(0.0)
    workspaces = instance.agent_workspaces
    assert workspaces.parent.is_dir()
    instance.close()
    assert not workspaces.parent.exists()
