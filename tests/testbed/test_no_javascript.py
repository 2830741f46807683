"""The composer without JavaScript, in real headless Chromium with JavaScript off: a person whose browser runs no
script is told why a message was refused, and keeps what they typed."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page

from harness.products.testbed import TestbedInstance
from harness.products.testbed.pages import TaskPage
from harness.testbed.web import EMPTY_MESSAGE

BLANK = "   \n  "
"""What a person sends when they press Send on a message of spaces: the textarea's ``required`` lets it through."""


@pytest.fixture
def no_script_page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(java_script_enabled=False)
    try:
        yield context.new_page()
    finally:
        context.close()


def test_an_empty_message_is_refused_with_a_clear_reason_and_what_was_typed_is_kept(
    no_script_page: Page, testbed: TestbedInstance
) -> None:
    task = testbed.api.create_task("no script", "", assignee_id=None)
    page = TaskPage(no_script_page, testbed.base_url, task.id).open()
    form_post = f"{testbed.base_url}/tasks/{task.id}/comments"  # with a script, the composer posts to /api/ instead
    with no_script_page.expect_response(form_post) as answered:
        page.submit_message(BLANK)
    assert answered.value.status == 422
    assert page.composer_error() == EMPTY_MESSAGE
    assert page.composer_text() == BLANK
    assert testbed.api.task(task.id).comments == []

    with no_script_page.expect_response(form_post) as answered:
        page.submit_message("a real message")
    assert answered.value.status == 303  # then the page again, showing it
    assert page.composer_error() is None
    assert [c.body for c in page.user_messages_with("a real message")] == ["a real message"]
    assert [c.body for c in testbed.api.task(task.id).comments] == ["a real message"]
