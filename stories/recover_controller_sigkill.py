"""The server is killed outright (SIGKILL) under a running job and started again.

The same journey as ``recover_controller``; only the way the controller dies
differs, so nothing it would do on a graceful shutdown can help.
"""

from __future__ import annotations

import signal

from harness.core.catalog import Case
from harness.running.journey import Journey
from stories.recover_controller import recover

CASE = Case(
    name="recover-controller-sigkill",
    needs=("controller-restart",),
    scripted_deadline_s=180,
    scripted_pace_s=0.3,
    description="The controller is killed (SIGKILL) mid-run and started again; the runner survives.",
)


def story(journey: Journey) -> None:
    recover(journey, signal.SIGKILL)
