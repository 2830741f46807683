"""The container environment's defects: sandboxes and their leases, caught by the sandbox, stop and restart checks."""

from __future__ import annotations

from calibration.defect_case import CONTAINER_CELL, DefectCase

CASES: tuple[DefectCase, ...] = (
    DefectCase(
        defect="sandbox-lease-not-readopted",
        case="recover-controller",
        cell=CONTAINER_CELL.format("recover-controller"),
        expected_check="restart.same-run",
        why="the restarted controller marks the run lost though its sandbox's lease is live",
    ),
    DefectCase(
        defect="sandbox-left-running",
        case="stop-redirect",
        cell=CONTAINER_CELL.format("stop-redirect"),
        expected_check="stop.sandbox-gone",
        why="Stop says the sandbox is gone while the engine still runs its container",
    ),
    DefectCase(
        defect="sandbox-workspace-kept",
        case="build-revise",
        cell=CONTAINER_CELL.format("build-revise"),
        expected_check="sandbox.workspace-returned",
        why="the delivered files never come back from the sandbox into the task's workspace",
    ),
    DefectCase(
        defect="sandbox-lease-kept",
        case="build-revise",
        cell=CONTAINER_CELL.format("build-revise"),
        expected_check="sandbox.released",
        why="the product never releases a finished run's lease, so the run holds its sandbox for ever",
        # The held lease keeps the revision's run queued; the wait for it names the lease once it is held past the
        # release allowance (harness.running.sandbox_watch), not the attempt's deadline.
    ),
    DefectCase(
        defect="sandbox-reaches-host",
        case="build-revise",
        cell=CONTAINER_CELL.format("build-revise"),
        expected_check="sandbox.contained",
        why="the runner's sandbox shares the host's network and sees the controller's data folder",
    ),
    DefectCase(
        defect="sandbox-privileged",
        case="build-revise",
        cell=CONTAINER_CELL.format("build-revise"),
        expected_check="sandbox.contained",
        why="the runner's sandbox has no network and no extra mount, but runs privileged in the host's PID namespace",
    ),
)
