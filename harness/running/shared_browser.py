"""The browser every attempt of a process opens its context in, relaunched (and the relaunch recorded) if it went away.

A Chromium that crashed or was killed between attempts would otherwise end
the next attempt as an infrastructure failure before its story began, and
so would every later attempt of the process where Playwright's own driver
went with it (its browser still reads as connected, and every call through
it fails). The harness relaunches the browser once, in the attempt that
found it gone, through a Playwright started afresh where the driver is gone
too, and records that recovery in the attempt's package: a pass after it is
``passed_with_recovery``, never a clean pass.
"""

from __future__ import annotations

from typing import Any

from playwright._impl._errors import TargetClosedError  # what a call raises once its browser or driver is gone
from playwright.sync_api import Browser, BrowserContext, BrowserType, Playwright, sync_playwright
from playwright.sync_api import Error as PlaywrightError

from harness.core.records import RecoveryKind
from harness.evidence.recorder import EvidenceRecorder
from harness.running.browser import launch_options


class SharedBrowser:
    """One Chromium shared by the attempts of a process: opens each attempt's context, relaunching a browser gone."""

    def __init__(self, browser: Browser) -> None:
        self.browser = browser
        self._playwright: Playwright | None = None  # started here when the first one's driver went away

    def new_context(self, recorder: EvidenceRecorder, **options: Any) -> BrowserContext:
        """A new context; a browser found gone (before or while opening it) is relaunched once and recorded."""
        if not self.browser.is_connected():
            self._relaunch(recorder, "the browser was gone when the attempt opened its page")
            return self.browser.new_context(**options)
        try:
            return self.browser.new_context(**options)
        except PlaywrightError as error:
            if self.browser.is_connected() and not isinstance(error, TargetClosedError):
                raise
            self._relaunch(recorder, f"the browser went away while the attempt opened its page ({error.message})")
            return self.browser.new_context(**options)

    def _relaunch(self, recorder: EvidenceRecorder, why: str) -> None:
        try:
            self.browser = _launch(self.browser.browser_type)
        except TargetClosedError:
            self.close()
            self._playwright = sync_playwright().start()
            self.browser = _launch(self._playwright.chromium)
            why = f"{why}; Playwright's driver had gone too and was started afresh"
        recorder.recovered(RecoveryKind.BROWSER_RELAUNCHED, why)

    def close(self) -> None:
        """Close the browser this keeper holds now (the relaunched one, if any), and the Playwright it started."""
        try:
            if self.browser.is_connected():
                self.browser.close()
        except TargetClosedError:
            pass  # its driver is gone, and the browser with it
        if self._playwright is not None:
            self._playwright.stop()
            self._playwright = None


def _launch(browser_type: BrowserType) -> Browser:
    return browser_type.launch(headless=True, **launch_options(browser_type))
