"""A runner that keeps running after its run ended is stopped after a grace, and its lease released (real engine).

The run's rows are written straight into a real SQLite file: the state (a
run ended, its container still running) is what a hung runner leaves, and no
scripted agent hangs on purpose.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from harness.testbed.db import Database, now
from harness.testbed.models import RunLease
from harness.testbed.sandbox import leases
from harness.testbed.sandbox.containers import ContainerRunners
from oracle.engine import NotFound
from tests.needs import marked


@marked("product")
def test_a_runner_going_on_after_its_run_ended_is_stopped_after_the_grace(tmp_path: Path) -> None:
    db = Database(tmp_path / "testbed.sqlite3")
    runners = ContainerRunners(db, tmp_path, hung_grace_s=3600)
    container = runners.client.create(
        {"Image": runners.image.id, "Cmd": ["sleep", "600"], "HostConfig": {"Init": True}}
    )
    try:
        runners.client.start(container)
        lease = RunLease(
            sandbox="container",
            sandbox_id=container,
            started_at=runners.client.inspect(container)["State"]["StartedAt"],
            image_digest=runners.image.id,
        )
        with db.transaction() as conn:
            conn.execute(
                "INSERT INTO agents (id, name, role, adapter, model, created_at) VALUES (1,'a','r','s','m',?)", (now(),)
            )
            conn.execute(
                "INSERT INTO tasks (id, title, body, status, created_at, updated_at) VALUES (1,'t','b','done',?,?)",
                (now(), now()),
            )
            conn.execute(
                "INSERT INTO runs (id, task_id, agent_id, adapter, model, status, log_path, queued_at, ended_at) "
                "VALUES (1, 1, 1, 's', 'm', 'succeeded', ?, ?, ?)",
                (str(tmp_path / "run.log"), now(), now()),
            )
        leases.record(db, 1, 1, lease)

        runners.release_ended()
        held = leases.lease_of(db.connection(), 1)
        assert held is not None and held.active and runners.is_alive(lease), "released within the grace"

        runners.hung_grace_s = 0
        runners.release_ended()
        released = leases.lease_of(db.connection(), 1)
        assert released is not None and not released.active and released.sandbox_gone
        assert leases.unreleased(db) == []
        with pytest.raises(NotFound):
            runners.client.inspect(container)  # the hung runner's container is gone from the engine
    finally:
        with contextlib.suppress(NotFound):
            runners.client.remove(container)
