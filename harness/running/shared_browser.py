"""The browser every attempt of a process opens its context in, relaunched (and the relaunch recorded) if it went away.

A Chromium that crashed or was killed between attempts would otherwise end
the next attempt as an infrastructure failure before its story began. The
harness relaunches it once, in the attempt that found it gone, and records
that recovery in the attempt's package: a pass after it is
``passed_with_recovery``, never a clean pass.
"""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Browser, BrowserContext
from playwright.sync_api import Error as PlaywrightError

from harness.core.records import RecoveryKind
from harness.evidence.recorder import EvidenceRecorder
from harness.running.browser import launch_options


class SharedBrowser:
    """One Chromium shared by the attempts of a process: opens each attempt's context, relaunching a browser gone."""

    def __init__(self, browser: Browser) -> None:
        self.browser = browser

    def new_context(self, recorder: EvidenceRecorder, **options: Any) -> BrowserContext:
        """A new context; a browser found gone (before or while opening it) is relaunched once and recorded."""
        if not self.browser.is_connected():
            self._relaunch(recorder, "the browser was gone when the attempt opened its page")
            return self.browser.new_context(**options)
        try:
            return self.browser.new_context(**options)
        except PlaywrightError as error:
            if self.browser.is_connected():
                raise
            self._relaunch(recorder, f"the browser went away while the attempt opened its page ({error.message})")
            return self.browser.new_context(**options)

    def _relaunch(self, recorder: EvidenceRecorder, why: str) -> None:
        browser_type = self.browser.browser_type
        self.browser = browser_type.launch(headless=True, **launch_options(browser_type))
        recorder.recovered(RecoveryKind.BROWSER_RELAUNCHED, why)

    def close(self) -> None:
        """Close the browser this keeper holds now (the relaunched one, if any)."""
        if self.browser.is_connected():
            self.browser.close()
