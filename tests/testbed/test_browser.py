"""The web UI in real headless Chromium, driven through the page objects."""

from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path

import psutil
import pytest
from PIL import Image, ImageChops
from playwright.sync_api import Page, expect
from product_helpers import start_build, unique

from harness.core.product_records import Hire
from harness.fixtures.documents import DocumentService
from harness.products.testbed import TestbedInstance
from harness.products.testbed.pages import HireFormPage, TaskListPage, TaskPage
from harness.running.screenshots import FullPageCamera
from oracle.tasks.slugify.contract import BUILD_TASK, BUILD_TASK_TITLE, LATE_REQUIREMENT_MAX_LENGTH


def test_create_task_watch_it_finish_and_download(page: Page, testbed: TestbedInstance) -> None:
    tasks = TaskListPage(page, testbed.base_url).open()
    name = unique("Browser")
    agent_id = tasks.create_agent(name, role="lead")
    assert [a.name for a in testbed.api.agents() if a.id == agent_id] == [name]
    task_page = tasks.create_task(BUILD_TASK_TITLE, BUILD_TASK, name)

    task_page.wait_until_status("done")
    [shown] = task_page.wait_for_deliveries(1)
    data = task_page.download_delivery(0)
    assert hashlib.sha256(data).hexdigest() == shown.sha256 == testbed.api.deliveries(task_page.task_id)[0].sha256
    assert task_page.download_delivery(0) == data
    assert "slugify.py" in zipfile.ZipFile(io.BytesIO(data)).namelist()
    task_page.scroll_latest_reply_into_view()

    before = task_page.comments()
    task_page.reload()
    assert task_page.status() == "done" and task_page.comments() == before
    assert TaskListPage(page, testbed.base_url).open().status_of(task_page.task_id) == "done"


def test_the_camera_keeps_the_same_whole_page_as_playwright_scrolled_or_not(
    page: Page, testbed: TestbedInstance, tmp_path: Path
) -> None:
    """The fast capture is the whole document from its top, pixel for pixel what Playwright's full page keeps."""
    tasks = TaskListPage(page, testbed.base_url).open()
    name = unique("Camera")
    tasks.create_agent(name, role="lead")
    task_page = tasks.create_task(BUILD_TASK_TITLE, BUILD_TASK, name)
    task_page.wait_until_status("done")
    task_page.wait_for_deliveries(1)
    camera = FullPageCamera(page)
    for scrolled in (False, True):
        if scrolled:
            page.mouse.wheel(0, 300)
            page.wait_for_function("window.scrollY > 0")
        camera.take(tmp_path / "camera.png")
        page.screenshot(path=tmp_path / "playwright.png", full_page=True)
        with Image.open(tmp_path / "camera.png") as ours, Image.open(tmp_path / "playwright.png") as theirs:
            assert ours.size == theirs.size and ours.height > page.viewport_size["height"]  # type: ignore[index]
            assert ImageChops.difference(ours.convert("RGB"), theirs.convert("RGB")).getbbox() is None


@pytest.mark.pace(0.3)
def test_reply_mid_run_is_shown_once_and_consumed_by_that_run(page: Page, fresh_testbed: TestbedInstance) -> None:
    api = fresh_testbed.api
    task, run = start_build(api)
    task_page = TaskPage(page, fresh_testbed.base_url, task.id).open()
    run_id = task_page.wait_for_active_run()
    assert run_id == run.id

    message = task_page.send_message(LATE_REQUIREMENT_MAX_LENGTH)
    assert len(task_page.user_messages_with(LATE_REQUIREMENT_MAX_LENGTH)) == 1
    assert task_page.wait_until_consumed(message.id) == run_id
    task_page.wait_until_status("done")

    done = api.wait_until_done(task.id)
    assert [r.status for r in done.runs] == ["succeeded"]
    assert "--max-length" in zipfile.ZipFile(io.BytesIO(task_page.download_delivery(-1))).read("slugify.py").decode()
    task_page.reload()
    assert len(task_page.user_messages_with(LATE_REQUIREMENT_MAX_LENGTH)) == 1
    assert [c.id for c in done.user_messages()] == [message.id]


@pytest.mark.pace(0.3)
def test_stop_kills_the_runner_and_a_new_request_gets_a_short_reply(page: Page, fresh_testbed: TestbedInstance) -> None:
    api = fresh_testbed.api
    task, running = start_build(api)
    task_page = TaskPage(page, fresh_testbed.base_url, task.id).open()

    stopped_id = task_page.stop()
    assert stopped_id == running.id
    stopped = api.run(stopped_id)
    assert stopped.status == "cancelled" and stopped.process_group_gone is True
    assert (
        not psutil.pid_exists(running.identity.pid or 0)
        or psutil.Process(running.identity.pid or 0).status() == psutil.STATUS_ZOMBIE
    )
    hashes = api.workspace_hashes(task.id)
    assert "slugify.py" in hashes

    task_page.send_message("Change of plan: stop building. Just give me a short reply with the nonce K7Q2X9.")
    done = api.wait_until_done(task.id)
    assert "K7Q2X9" in done.agent_replies()[-1].body
    assert [r.status for r in done.runs] == ["cancelled", "succeeded"]
    assert api.workspace_hashes(task.id) == hashes
    task_page.reload()
    assert task_page.status() == "done"


def test_live_refresh_leaves_an_unchanged_page_alone(page: Page, testbed: TestbedInstance) -> None:
    """A settled task's page is not re-rendered by the state its stream pushes, so nothing a reader holds gets
    detached; a commit elsewhere pushes nothing to it."""
    agent = testbed.api.create_agent(name=unique("Still"))
    task = testbed.api.wait_until_done(testbed.api.create_task(BUILD_TASK_TITLE, BUILD_TASK, assignee_id=agent.id).id)
    task_page = TaskPage(page, testbed.base_url, task.id).open()
    page.evaluate("() => { document.querySelector('[data-testid=comment]').everydayMark = true; }")
    expect(page.get_by_test_id("live")).to_have_attribute("data-shown-events", "1")  # the stream's first state
    testbed.api.create_agent(name=unique("Elsewhere"))  # a commit that changes nothing this page shows
    still_there = page.evaluate("() => document.querySelector('[data-testid=comment]').everydayMark === true")
    assert still_there, "the pushed state replaced an unchanged fragment"
    assert task_page.status() == "done"


def test_services_are_listed_and_a_decision_is_clicked_once(page: Page, testbed: TestbedInstance, tmp_path) -> None:
    from harness.decisions.contract import document_task
    from harness.fixtures.documents import PROTECTED_ACTION, DocumentService

    api = testbed.api
    with DocumentService(tmp_path / "capture.jsonl") as fixture:
        agent = api.create_agent(name=unique("Decider"))
        service = api.install_service(unique("Docs"), fixture.url)
        api.add_connection(service.id, "Team", fixture.credential, "ask_first", [agent.id])
        listing = TaskListPage(page, testbed.base_url).open()
        assert (service.name, "Team", "ask_first") in listing.connections_shown()
        assert fixture.credential not in listing.rendered_html()

        task_page = listing.create_task("Doc", document_task("Browser doc", service.name), agent.name)
        [pending] = api.wait_for(lambda: api.interactions(task_page.task_id) or None, what="a pending request")
        task_page.wait_for_decision_card(pending.id)
        [card] = task_page.decision_cards()
        assert (card.action, card.service, card.buttons) == (
            PROTECTED_ACTION,
            service.name,
            {"approve": "Approve", "decline": "Decline"},
        )
        task_page.decide(pending.id, approve=True)
        again = page.request.post(
            f"{testbed.base_url}/interactions/{pending.id}/decision",
            form={"decision": "approve"},
            headers={"origin": testbed.base_url},
        )
        assert again.ok  # the form answers with the task page; the saved decision stands
        task_page.wait_until_status("done")
        saved = api.interactions(task_page.task_id)[0]
        assert (saved.status, saved.decided_by, saved.outcome) == ("approved", "user", "completed")
        assert len([e for e in fixture.capture() if e.tool == PROTECTED_ACTION and e.outcome == "accepted"]) == 1
        assert task_page.decision_cards()[0].buttons == {}


def test_the_hire_form_stores_the_manager_runner_model_and_ticked_connections(
    page: Page, testbed: TestbedInstance
) -> None:
    api = testbed.api
    lead = api.create_agent(name=unique("Lead"), model="uncited-report")
    with DocumentService(testbed.data_dir / "hire-capture.jsonl") as service:
        installed = api.install_service(unique("Docs"), service.url)
        ticked = api.add_connection(installed.id, "Team", service.credential, "ask_first", [lead.id])
        untouched = api.add_connection(installed.id, "Other", service.credential, "allow", [])
    form = HireFormPage(page, testbed.base_url).open()
    name = unique("Morgan")
    form.fill(
        Hire(
            name=name, role="QA", reports_to=lead.name, adapter="scripted", model=lead.model, connection_ids=[ticked.id]
        )
    )
    form.submit()
    [hired] = [agent for agent in api.agents() if agent.name == name]
    assert hired.id == form.hired_id(name)
    assert (hired.role, hired.reports_to, hired.adapter, hired.model) == ("QA", lead.id, "scripted", "uncited-report")
    bound = {c.id: c.agent_ids for c in api.connections()}
    assert hired.id in bound[ticked.id] and hired.id not in bound[untouched.id]
