"""The server is killed outright (SIGKILL) under a running job and started again.

The same journey as ``recover_controller``; only the way the controller dies
differs, so nothing it would do on a graceful shutdown can help.
"""

from __future__ import annotations

import signal

from harness.running.journey import Journey
from stories.recover_controller import recover


def story(journey: Journey) -> None:
    recover(journey, signal.SIGKILL)
