"""Where Chromium comes from and how it is launched.

Playwright's own browser is preferred (a user's laptop); machines that cannot
download it use the distribution's chromium through ``executable_path``:
its headless shell first, the lighter build Playwright itself runs for
headless Chromium (a scripted cell's browser used 1.8-2.9 CPU-s in it
against 4.3-4.4 in the full browser), else the full browser.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from playwright.sync_api import BrowserType

SYSTEM_CHROMIUM_CANDIDATES = (
    "/usr/bin/chromium-headless-shell",
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
)

# Flags that keep a headless Chromium quiet on a closed network and runnable as root.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-gpu",
    "--disable-quic",
]


def playwright_chromium(chromium: BrowserType | None = None) -> str | None:
    """Path of Playwright's downloaded Chromium, when it exists.

    Pass the running Playwright's ``chromium`` where there is one: a second
    sync Playwright cannot start inside the first one's event loop.
    """
    if chromium is None:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as playwright:
            return playwright_chromium(playwright.chromium)
    path = chromium.executable_path
    return path if path and Path(path).exists() else None


def system_chromium() -> str | None:
    for candidate in SYSTEM_CHROMIUM_CANDIDATES:
        if Path(candidate).exists():
            return candidate
    found = shutil.which("chromium")
    return found


def launch_options(chromium: BrowserType | None = None) -> dict:
    """Keyword arguments for ``browser_type.launch``; raises when no browser exists."""
    if playwright_chromium(chromium):
        return {"args": CHROMIUM_ARGS}
    system = system_chromium()
    if system:
        return {"executable_path": system, "args": CHROMIUM_ARGS}
    raise RuntimeError(
        "No Chromium found: run '.venv/bin/playwright install chromium' or 'apt-get install -y chromium-headless-shell'."
    )


def main(argv: list[str]) -> int:
    if argv[:1] == ["--check"]:
        try:
            print(launch_options())
        except RuntimeError as error:
            print(error, file=sys.stderr)
            return 1
        return 0
    print("usage: python -m harness.running.browser --check", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
