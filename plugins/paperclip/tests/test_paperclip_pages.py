"""Paperclip's web UI in real headless Chromium, driven through the driver's page objects.

Needs Paperclip installed (``make paperclip``, which ``make test`` runs): a
missing install fails these tests loudly, it never skips them.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, Route

from everyday_paperclip.instance import PaperclipInstance
from everyday_paperclip.pages import IssueListPage, IssuePage
from harness.core.product_records import Agent
from harness.core.waiting import wait_for
from oracle.tasks.slugify.contract import BUILD_TASK, BUILD_TASK_TITLE
from tests.needs import needs


@pytest.fixture(scope="module")
@needs("product")
def paperclip() -> Iterator[PaperclipInstance]:
    """One instance for this module's tests: each hires an agent of its own and works on an issue of its own
    through a page of its own, so neither reads what the other did; nothing of it outlives the module."""
    instance = PaperclipInstance(pace=0.05)
    try:
        yield instance.start()
    finally:
        instance.close()
    assert instance.processes() == [], "a Paperclip process outlived its instance"


# Paperclip answers a new issue titled as one the company already has with that issue: the issue this module's
# other test creates keeps the build's own title.
STOPPED_TASK_TITLE = f"{BUILD_TASK_TITLE}, to be stopped"

# In the page itself, so nothing else waits: each message the composer sends reaches the product 3 s late.
MESSAGES_SENT_LATE = """
const fetchNow = window.fetch;
window.fetch = (input, init) => /\\/comments$/.test(String(input.url ?? input)) && (init?.method ?? input.method) === "POST"
    ? new Promise(done => setTimeout(done, 3000)).then(() => fetchNow(input, init))
    : fetchNow(input, init);
"""


def test_create_an_issue_watch_it_finish_talk_and_download(page: Page, paperclip: PaperclipInstance) -> None:
    api = paperclip.api
    lead = api.create_agent("Avery", "lead engineer")
    issue = IssueListPage(page, paperclip.base_url).open().create_task(BUILD_TASK_TITLE, BUILD_TASK, assignee=lead.name)
    created = api.task(issue.task_id)
    assert created.title == BUILD_TASK_TITLE and created.assignee_id == lead.id

    wait_for(
        lambda: api.task(issue.task_id).settled and api.task(issue.task_id).status == "done",
        timeout=90,
        what="the build to finish",
    )
    issue.wait_until_status("done", timeout=30)
    assert issue.status() == "done"
    done = api.task(issue.task_id)
    assert issue.latest_reply() is not None and issue.latest_reply().body == done.agent_replies()[-1].body  # type: ignore[union-attr]

    data = issue.download_delivery_id(str(done.deliveries[-1].id))
    assert hashlib.sha256(data).hexdigest() == done.deliveries[-1].sha256

    # Underscores on purpose: Paperclip's composer stores markdown (``\_``); the thread shows the typed text.
    text = "Thanks! Please keep snake_case names in slugify_cli."
    # The message reaches the product 3 s after Send, as on a loaded machine: until then the thread says "Sending…",
    # and a reload would lose it.
    page.add_init_script(MESSAGES_SENT_LATE)
    shown = issue.reload().send_message(text)
    assert shown.author_kind == "user" and len(issue.reload().user_messages_with(text)) == 1
    assert [c.body for c in api.task(issue.task_id).user_messages()] == [text]


def _slow_agent(paperclip: PaperclipInstance, name: str, pace: str) -> Agent:
    """A lead engineer whose scripted runs take ``pace`` seconds a step; agents hired after it keep the instance's
    pace (an agent's pace is fixed when it is hired)."""
    settings = paperclip.api.agent_settings
    usual = settings["pace"]
    settings["pace"] = pace
    try:
        return paperclip.api.create_agent(name, "lead engineer")
    finally:
        settings["pace"] = usual


def test_stop_cancels_the_running_run_from_its_page(page: Page, paperclip: PaperclipInstance) -> None:
    """Paperclip's Stop is Cancel on the run's page; the run ends cancelled by the user and its processes go."""
    api = paperclip.api
    lead = _slow_agent(paperclip, "Blake", pace="2.0")
    task = api.create_task(STOPPED_TASK_TITLE, BUILD_TASK, lead.id)
    issue = IssuePage(page, paperclip.base_url, str(task.id)).open()
    running = wait_for(
        lambda: api.task(task.id).running_run_that_saved("slugify.py"),
        timeout=60,
        what="a running run that saved slugify.py",
    )
    slowed: list[str] = []

    def answer_slowly(route: Route) -> None:
        """The run page's first read of the agent's runs takes 7 s, as on a loaded machine."""
        if not slowed:
            slowed.append(route.request.url)
            time.sleep(7)
        route.continue_()

    page.route(re.compile(re.escape(f"/heartbeat-runs?agentId={lead.id}")), answer_slowly)

    assert issue.click_stop(str(running.id)) is True  # a slow run page is not a run that ended
    assert slowed, "the run page never read the agent's runs"
    page.unroute_all()
    stopped = wait_for(
        lambda: (r := api.run(running.id)).status == "cancelled" and r, timeout=30, what="the run cancelled"
    )
    assert (
        stopped.error_code == "stopped_by_user" and stopped.terminal and stopped.terminal["stop_reason"] == "cancelled"
    )
    issue.wait_for_stop_result(str(running.id), timeout=30)
    wait_for(
        lambda: not paperclip.process_group_alive(running.identity.pid or 0), timeout=15, what="the run's group to exit"
    )
    assert issue.click_stop(str(running.id), timeout=2) is False  # a finished run offers no Cancel
