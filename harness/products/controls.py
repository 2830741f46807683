"""Working a page's controls as a person does: one place for every product's page objects.

A pointer click lands where the control was when the mouse went down. On a
live page the content above a control grows while the harness clicks (an
agent's reply appears in the thread), the control moves between mousedown and
mouseup, and the click becomes nothing: no submit, no error, a message never
sent. A keyboard user focuses the control and presses Enter, which follows the
control wherever the page moves it, so page objects press the controls below
a live fragment (the composer's Send). Controls inside a live fragment are
clicked: the fragment replaces them when it changes, focus goes with the old
element and a press would go nowhere, while a click retries on the new one;
a link whose click the swap swallowed is clicked again (``follow``).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Locator, Page, expect

DEFAULT_TIMEOUT_S = 30.0
FOLLOWED_WITHIN_S = 5.0
"""How long the page a followed link leads to may take to show (Playwright's own default for an expectation)."""
CLICK_AGAIN_AFTER_S = 1.0
"""How long a click on a link may show nothing before a person clicks it again."""


class DownloadFailed(AssertionError):
    """The browser started the download but could not finish it (a link answering 404, a cut connection).

    An ``AssertionError``, like a page expectation that never came true: a
    broken download link is the product's failure, never the harness's.
    """


def read_all(page: Page, selector: str, read_item: str) -> list[Any]:
    """Every element matching ``selector``, read by the JS function ``read_item``, all in one task of the page.

    Not ``locator.evaluate_all``: Playwright finds the elements in one round
    trip and reads them in another, and a live fragment swapped in between
    hands over detached elements, whose ``innerText`` is their raw source text.
    An email card once read differently before and after a reload that way,
    and the harness blamed the product. Found and read in the same task, the
    elements are one rendered moment of the page.
    """
    return page.evaluate(f"selector => [...document.querySelectorAll(selector)].map({read_item})", selector)


def press(control: Locator, timeout: float = DEFAULT_TIMEOUT_S) -> None:
    """Activate a button or link with the keyboard once it is shown and enabled.

    Raises Playwright's ``TimeoutError`` when the control never shows. A
    disabled one is waited for: focus would not move to it, and Enter would go
    to whatever had the focus. Nothing waits for the control to stop moving,
    since a key press does not care where it is.
    """
    control.wait_for(state="visible", timeout=timeout * 1000)
    expect(control).to_be_enabled(timeout=timeout * 1000)
    control.press("Enter", timeout=timeout * 1000)


def follow(link: Locator, arrived: Locator, timeout: float = FOLLOWED_WITHIN_S) -> None:
    """Click a link inside a live fragment until ``arrived`` (something only the page it leads to shows) is shown.

    A fragment swapped in between the mouse going down and up takes the click
    with the old element: the browser goes nowhere and says nothing, and the
    harness would blame the product for a page that never came. A person
    clicks again; so does this, while the link is still on the page (once a
    navigation is under way it is gone). Raises the expectation's
    ``AssertionError`` when the page never shows within ``timeout``.
    """
    deadline = time.monotonic() + timeout

    def within(seconds: float) -> float:
        return max(min(seconds, deadline - time.monotonic()), 0.001) * 1000

    while True:
        link.click()
        try:
            expect(arrived).to_be_visible(timeout=within(CLICK_AGAIN_AFTER_S))
            return
        except AssertionError:
            if time.monotonic() >= deadline:
                raise
            if link.count() == 0:  # on its way to the page: the rest of the time is the page's
                expect(arrived).to_be_visible(timeout=within(timeout))
                return


def download(page: Page, link: Locator, save_to: Path | None = None) -> bytes:
    """Click ``link``, wait for the download it starts, and return its bytes (also kept at ``save_to``).

    Clicked, not pressed: a link inside a live fragment is replaced when the
    fragment changes, which takes the keyboard focus with it, and a press
    then goes nowhere without an error; a click retries on the new element.
    """
    with page.expect_download() as info:
        link.click()
    started = info.value
    failure = started.failure()
    if failure is not None:
        raise DownloadFailed(f"the browser could not download {started.url}: {failure}")
    if save_to is not None:
        save_to.parent.mkdir(parents=True, exist_ok=True)
        started.save_as(save_to)
        return save_to.read_bytes()
    return Path(started.path()).read_bytes()
