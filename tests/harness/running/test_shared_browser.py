"""The shared browser outlives its Playwright driver: a driver that died between attempts (its browser still reads as
connected, every call through it fails) is started afresh for the next attempt, and the relaunch is recorded."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.needs import marked

ROOT = Path(__file__).resolve().parents[3]

DRIVER_DIES = """
import os, signal, sys
from pathlib import Path
from playwright.sync_api import sync_playwright
from harness.core.waiting import wait_for
from harness.evidence.recorder import EvidenceRecorder
from harness.running.browser import launch_options
from harness.running.shared_browser import SharedBrowser


def drivers() -> set[int]:
    # this process's Playwright drivers still running
    found = set()
    for entry in Path("/proc").iterdir():
        try:
            state, parent = (entry / "stat").read_text().rsplit(") ", 1)[1].split()[:2]
            command = (entry / "cmdline").read_bytes()
        except (OSError, ValueError):
            continue
        if int(parent) == os.getpid() and b"run-driver" in command and state != "Z":
            found.add(int(entry.name))
    return found


playwright = sync_playwright().start()
shared = SharedBrowser(playwright.chromium.launch(headless=True, **launch_options(playwright.chromium)))
shared.new_context(EvidenceRecorder(Path(sys.argv[1]) / "first")).close()
[driver] = drivers()
os.kill(driver, signal.SIGKILL)
wait_for(lambda: driver not in drivers(), timeout=30, what="the driver to go")
recorder = EvidenceRecorder(Path(sys.argv[1]) / "second")
page = shared.new_context(recorder).new_page()
page.set_content("<p>answered</p>")
print(page.inner_text("p"))
print(*[f"{r.kind.value}: {r.detail}" for r in recorder.recoveries], sep="\\n")
shared.close()
"""


@marked("browser")
def test_a_driver_gone_between_attempts_is_started_afresh_and_the_relaunch_recorded(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", DRIVER_DIES, str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "answered"
    assert lines[1].startswith("browser-relaunched: the browser went away while the attempt opened its page")
    assert lines[1].endswith("Playwright's driver had gone too and was started afresh"), lines
