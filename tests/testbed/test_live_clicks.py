"""The testbed's live task page takes every click, though its fragment changes while the mouse is down.

The page's own script (harness/testbed/static/app.js) runs in real Chromium on a page served by routes, so the
test decides when the stream brings a new state: between the press and the release of a click on Stop.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, Route, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

import harness.testbed

ORIGIN = "http://testbed.test"
APP_JS = (Path(harness.testbed.__file__).parent / "static" / "app.js").read_text()
HOLD = "if (pressed) return;"
STOP_FORM = (
    '<form method="post" action="/runs/3/stop" data-stop-url="/api/runs/3/stop">'
    '<button type="submit" aria-label="Stop run #3">Stop</button></form>'
)
PAGE = f"""<!doctype html>
<div id="live" data-testid="live" data-events-url="/tasks/7/live/events"><span>Run #3 running</span>{STOP_FORM}</div>
<form data-testid="composer" data-api-url="/api/tasks/7/comments"><textarea></textarea><button>Send</button></form>
<p data-testid="composer-error" hidden></p>
<script src="/static/app.js"></script>
"""
# The next state, as the stream sends it: the run's row changed, so the whole fragment (Stop included) is new.
NEXT_STATE = f"retry: 600000\ndata: <span>Run #3 running, slugify.py saved</span>{STOP_FORM}\n\n"


def _serve(page: Page, script: str) -> list[Route]:
    """Serve the task page and ``script``; the stream's requests are held and returned, for the test to answer."""
    streams: list[Route] = []
    page.route(f"{ORIGIN}/tasks/7", lambda route: route.fulfill(body=PAGE, content_type="text/html"))
    page.route(f"{ORIGIN}/static/app.js", lambda route: route.fulfill(body=script, content_type="text/javascript"))
    page.route(f"{ORIGIN}/tasks/7/live/events", lambda route: streams.append(route))
    page.route(f"{ORIGIN}/api/runs/3/stop", lambda route: route.fulfill(json={"stopped": 3}))
    with page.expect_request(f"{ORIGIN}/tasks/7/live/events"):
        page.goto(f"{ORIGIN}/tasks/7")
    return streams


def _press_stop_while_the_state_changes(page: Page, streams: list[Route]) -> None:
    """Press the mouse on Stop, let the stream bring the next state, and wait until the page has received it."""
    page.get_by_role("button", name="Stop run #3").hover()
    page.mouse.down()
    streams[0].fulfill(body=NEXT_STATE, content_type="text/event-stream")
    expect(page.get_by_test_id("live")).to_have_attribute("data-received-events", "1")


def test_without_the_hold_a_state_swapped_in_under_the_mouse_loses_the_click(page: Page) -> None:
    """The premise: the race the hold exists for is real in this browser."""
    assert HOLD in APP_JS
    streams = _serve(page, APP_JS.replace(HOLD, ""))
    _press_stop_while_the_state_changes(page, streams)
    with pytest.raises(PlaywrightTimeoutError), page.expect_request(f"{ORIGIN}/api/runs/3/stop", timeout=1000):
        page.mouse.up()


def test_a_stop_pressed_while_the_state_changes_is_sent_and_the_page_catches_up(page: Page) -> None:
    streams = _serve(page, APP_JS)
    _press_stop_while_the_state_changes(page, streams)
    assert page.get_by_test_id("live").get_attribute("data-shown-events") is None  # held while the mouse is down
    with page.expect_request(f"{ORIGIN}/api/runs/3/stop", timeout=5000):
        page.mouse.up()
    expect(page.get_by_test_id("live")).to_have_attribute("data-shown-events", "1")
    expect(page.get_by_text("slugify.py saved")).to_be_visible()
