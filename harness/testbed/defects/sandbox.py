"""Defects in the container environment: the lease across a restart, Stop, the workspace, the sandbox's reach."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..db import Database
from .registry import declarer

defect = declarer("sandbox")
log = logging.getLogger("testbed.defects")


@defect(
    "sandbox-lease-not-readopted",
    at="sandbox.lease-alive",
    summary="after a restart the controller does not re-adopt a live sandbox's lease: the run is marked lost and"
    " another run is started in a new sandbox instead",
)
def lease_taken_for_lost(alive: bool, *, db: Database, run: sqlite3.Row, **_: Any) -> bool:
    log.warning("defect sandbox-lease-not-readopted: run %s not re-adopted; starting another", run["id"])
    with db.transaction() as conn:
        conn.execute("UPDATE tasks SET wake = 1, wake_cause = 'recovery' WHERE id = ?", (run["task_id"],))
    return False


@defect(
    "sandbox-left-running",
    at="sandbox.stop",
    summary="Stop records the run's sandbox gone without stopping its container",
)
def says_stopped(stop: Callable[..., bool], **_: Any) -> Callable[..., bool]:
    return lambda *_args, **_kwargs: True


@defect(
    "sandbox-workspace-kept",
    at="sandbox.bring-back",
    summary="a finished run's workspace is not brought back from its sandbox before the sandbox is removed",
)
def workspace_kept(bring_back: bool, **_: Any) -> bool:
    return False


@defect(
    "sandbox-reaches-host",
    at="sandbox.host-config",
    summary="runner sandboxes share the host's network and see the controller's data folder",
)
def host_network(host_config: dict[str, Any], *, data_dir: Path, **_: Any) -> dict[str, Any]:
    data = {"Type": "bind", "Source": str(data_dir), "Target": "/controller-data", "ReadOnly": True}
    return {**host_config, "NetworkMode": "host", "Mounts": [*host_config["Mounts"], data]}


@defect(
    "sandbox-lease-kept",
    at="sandbox.release",
    summary="a finished run's sandbox is removed but its lease is never released: the run still holds it",
)
def lease_kept(release: bool, **_: Any) -> bool:
    return False
