"""Ctrl-C, however it arrives, ends an attempt as "interrupted by the user".

A terminal's Ctrl-C sends SIGINT to the whole process group: Playwright's
driver and Chromium die with the harness, and the error the story sees first
is often the browser's (``TargetClosedError``), not ``KeyboardInterrupt``. The
handler below notes the signal the moment it arrives, so the attempt's
verdict is decided by what happened, not by which error won the race.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType

_received = threading.Event()


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    _received.set()
    raise KeyboardInterrupt


def install() -> None:
    """Note every SIGINT in this process (main thread only, as Python requires), then interrupt as usual."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, _on_sigint)


def interrupted() -> bool:
    return _received.is_set()
