"""Interrupt sync-Playwright calls at random moments, as Ctrl-C does, and require the next call to answer.

Run as a process of its own (``python -m tests.harness.running.interrupted_playwright_calls N``):
the SIGINTs it sends itself would otherwise hit the test runner. Exits 3 the
moment a call after an interrupt hangs (10 s), 0 after ``N`` clean rounds.

A round is not clean either when a call returned to the story after the
interrupt's handler had run: when the answer was already queued, the story
resumed before the interrupt, and a story that then waited for anything but
Playwright played on (in 1 round in 60 to 300 before it was fixed).
"""

from __future__ import annotations

import os
import random
import signal
import sys
import threading
from types import FrameType

from playwright.sync_api import sync_playwright

from harness.running import interrupt
from harness.running.browser import launch_options

HANG_S = 10.0


def _exit_if_not_done(done: threading.Event) -> None:
    if not done.wait(HANG_S):
        print(f"a call after an interrupt hung for {HANG_S:.0f} s", flush=True)
        os._exit(3)


def main(rounds: int) -> int:
    interrupt.install()
    handled = threading.Event()
    installed = signal.getsignal(signal.SIGINT)
    assert callable(installed)

    def noted(signum: int, frame: FrameType | None) -> None:
        handled.set()
        installed(signum, frame)

    signal.signal(signal.SIGINT, noted)
    interrupted = resumed_after_the_interrupt = 0
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(**launch_options(playwright.chromium))
        page = browser.new_page()
        page.set_content("<div>" + "hello " * 2000 + "</div>")
        for _ in range(rounds):
            handled.clear()
            try:  # from before the timer starts: on a loaded machine it can fire before start() returns
                threading.Timer(random.uniform(0.0, 0.05), os.kill, (os.getpid(), signal.SIGINT)).start()
                while True:  # until Ctrl-C: the story's page reads, one after another
                    page.evaluate("document.body.innerText.length")
                    resumed_after_the_interrupt += handled.is_set()
            except KeyboardInterrupt:
                interrupted += 1
            done = threading.Event()
            threading.Thread(target=_exit_if_not_done, args=(done,), daemon=True).start()
            page.evaluate("1 + 1")
            done.set()
        browser.close()
    print(f"{interrupted} interrupted, every next call answered", flush=True)
    print(f"{resumed_after_the_interrupt} calls returned to the story after its interrupt", flush=True)
    return 0 if interrupted == rounds and not resumed_after_the_interrupt else 1


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1])))
