"""The scripted agent's everyday behaviours and each faulty persona's one broken thing."""

from __future__ import annotations

import io
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from product_helpers import new_agent, start_build

from harness.core.product_records import Agent, Task
from harness.products.testbed import ApiClient, TestbedInstance
from oracle.tasks.slugify.contract import BUILD_TASK, BUILD_TASK_TITLE, LATE_REQUIREMENT_MAX_LENGTH, REVISION_SEPARATOR


def team(api: ApiClient, model: str = "default") -> tuple[Agent, Agent]:
    lead = new_agent(api, model=model, role="lead")
    return lead, new_agent(api, model=model, role="engineer", reports_to=lead.id)


def delegation_body(teammate: Agent) -> str:
    return f"Ask your teammate {teammate.name} to build this through one child task.\n\n{BUILD_TASK}"


def run_delivered_cli(api: ApiClient, delivery_id: int, tmp_path: Path, *args: str) -> str:
    zipfile.ZipFile(io.BytesIO(api.delivery_bytes(delivery_id))).extractall(tmp_path)
    return subprocess.run([sys.executable, "slugify.py", *args], cwd=tmp_path, capture_output=True, text=True).stdout


def wait_for_child(api: ApiClient, parent_id: int) -> Task:
    parent = api.wait_for_task(parent_id, lambda t: bool(t.children), what="a child task")
    return api.task(parent.children[0].id)


@pytest.mark.pace(0.3)
def test_lead_delegates_and_reports_the_childs_final_delivery(fresh_testbed: TestbedInstance) -> None:
    api = fresh_testbed.api
    lead, mate = team(api)
    parent = api.create_task(BUILD_TASK_TITLE, delegation_body(mate), assignee_id=lead.id)
    child = wait_for_child(api, parent.id)
    api.wait_until_file_saved(child.id, "slugify.py")
    message = api.send_message(child.id, LATE_REQUIREMENT_MAX_LENGTH)

    done = api.wait_until_done(parent.id)
    child = api.wait_until_done(child.id)
    assert [c.assignee_id for c in done.children] == [mate.id]
    assert all(r.agent_id == lead.id for r in done.runs)
    assert all(r.agent_id == mate.id and r.status == "succeeded" for r in child.runs)
    final = child.deliveries[-1]
    assert final.sha256 in done.agent_replies()[-1].body
    assert done.runs[-1].ended_at and done.runs[-1].ended_at > final.created_at
    [stored] = [c for c in child.user_messages() if c.id == message.id]
    assert stored.consumed_by_run_id in {r.id for r in child.runs}
    assert "--max-length" in zipfile.ZipFile(io.BytesIO(api.delivery_bytes(final.id))).read("slugify.py").decode()


def test_trailing_separator_persona_keeps_the_cut_separator(api: ApiClient, tmp_path: Path) -> None:
    body = f"{BUILD_TASK}\n\n{LATE_REQUIREMENT_MAX_LENGTH}"
    task = api.create_task(BUILD_TASK_TITLE, body, assignee_id=new_agent(api, "trailing-separator").id)
    done = api.wait_until_done(task.id)
    assert (
        run_delivered_cli(api, done.deliveries[-1].id, tmp_path, "--max-length", "6", "  Queue--Ready!!  ")
        == "queue-\n"
    )


def test_trailing_separator_persona_trims_only_hyphens(api: ApiClient, tmp_path: Path) -> None:
    body = f"{BUILD_TASK}\n\n{REVISION_SEPARATOR}"
    task = api.create_task(BUILD_TASK_TITLE, body, assignee_id=new_agent(api, "trailing-separator").id)
    done = api.wait_until_done(task.id)
    assert (
        run_delivered_cli(api, done.deliveries[-1].id, tmp_path, "--separator", "_", "  Queue--Ready!!  ")
        == "queue_ready_\n"
    )


def test_leaves_in_review_persona(api: ApiClient) -> None:
    task = api.create_task(BUILD_TASK_TITLE, BUILD_TASK, assignee_id=new_agent(api, "leaves-in-review").id)
    settled = api.wait_for_task(task.id, lambda t: t.settled and bool(t.runs), what="run over")
    assert settled.status == "in_review" and settled.runs[-1].status == "succeeded"


def test_crashes_mid_run_persona(api: ApiClient) -> None:
    task = api.create_task(BUILD_TASK_TITLE, BUILD_TASK, assignee_id=new_agent(api, "crashes-mid-run").id)
    settled = api.wait_for_task(task.id, lambda t: t.settled and bool(t.runs), what="run over")
    assert settled.runs[-1].status == "failed" and settled.runs[-1].error_code == "runner_crashed"
    assert settled.status == "blocked"


def test_parent_before_child_persona(api: ApiClient) -> None:
    lead, mate = team(api, "parent-before-child")
    parent = api.create_task(BUILD_TASK_TITLE, delegation_body(mate), assignee_id=lead.id)
    done = api.wait_until_done(parent.id)
    child = api.wait_until_done(done.children[0].id)
    assert done.runs[-1].ended_at and done.runs[-1].ended_at < child.deliveries[-1].created_at
    assert child.deliveries[-1].sha256 not in done.agent_replies()[-1].body


def test_uncited_report_persona(api: ApiClient) -> None:
    lead, mate = team(api, "uncited-report")
    parent = api.create_task(BUILD_TASK_TITLE, delegation_body(mate), assignee_id=lead.id)
    done = api.wait_until_done(parent.id)
    child = api.wait_until_done(done.children[0].id)
    final, report = child.deliveries[-1], done.agent_replies()[-1].body
    assert f"child task #{child.id}" in report
    assert final.sha256 not in report and f"#{final.id}." not in report


def test_forgets_nonce_persona(api: ApiClient) -> None:
    task = api.create_task("Say hello", "Just say hello.", assignee_id=new_agent(api, "forgets-nonce").id)
    api.wait_until_done(task.id)
    api.send_message(task.id, "Reply with nonce Q7W8E9R0 only.")
    done = api.wait_for_task(task.id, lambda t: t.status == "done" and len(t.agent_replies()) == 2, what="the reply")
    assert "short reply" in done.agent_replies()[-1].body and "Q7W8E9R0" not in done.agent_replies()[-1].body


def test_works_on_parent_persona(api: ApiClient) -> None:
    lead, mate = team(api, "works-on-parent")
    parent = api.create_task(BUILD_TASK_TITLE, delegation_body(mate), assignee_id=lead.id)
    done = api.wait_until_done(parent.id)
    assert mate.id in {r.agent_id for r in done.runs}
    assert done.deliveries, "the teammate delivered on the parent"


@pytest.mark.pace(0.3)
def test_ignores_late_feedback_persona(fresh_testbed: TestbedInstance) -> None:
    api = fresh_testbed.api
    task, run = start_build(api, "ignores-late-feedback")
    message = api.send_message(task.id, LATE_REQUIREMENT_MAX_LENGTH)
    done = api.wait_until_done(task.id)
    assert [c.consumed_by_run_id for c in done.user_messages()] == [run.id] and message.id
    assert (
        "--max-length"
        not in zipfile.ZipFile(io.BytesIO(api.delivery_bytes(done.deliveries[-1].id))).read("slugify.py").decode()
    )


@pytest.mark.pace(0.3)
def test_writes_after_stop_persona(fresh_testbed: TestbedInstance) -> None:
    api = fresh_testbed.api
    task, run = start_build(api, "writes-after-stop")
    assert api.stop_run(run.id).process_group_gone
    before = api.wait_for(
        lambda: "progress.log" in (h := api.workspace_hashes(task.id)) and h, 10, what="writes after Stop"
    )
    api.wait_for(lambda: api.workspace_hashes(task.id) != before, timeout=10, what="more writes after Stop")
