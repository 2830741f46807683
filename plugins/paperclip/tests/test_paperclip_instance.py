"""A real Paperclip instance: isolated, restartable, torn down without leftovers; its API read into records.

Needs Paperclip installed (``make paperclip``, which ``make test`` runs):
a missing install fails these tests loudly, it never skips them.
"""

from __future__ import annotations

import contextlib
import signal
import time
from pathlib import Path

import psutil

from everyday_paperclip.instance import PaperclipInstance
from tests.needs import marked


@marked("product")
def test_instance_starts_restarts_keeps_postgres_memory_in_its_folder_and_a_kill_leaves_nothing_behind() -> None:
    """Postgres keeps its shared memory in the instance's folder and opens no socket: a SIGKILLed postmaster cannot
    remove its segments, nor its socket and lock file, which in /dev/shm and /tmp would stay until reboot."""
    instance = PaperclipInstance()
    try:
        instance.start()
        # How long a start takes is everyday_paperclip.bench's figure, never a bound here: the machine may be busy.
        assert instance.startup_s is not None and instance.startup_s > 0
        first = instance.api.controller().instance_id
        kinds = {" ".join(p.cmdline()[:1]) for p in instance.processes()}
        assert any("node" in k for k in kinds) and any("postgres" in k for k in kinds)
        instance.stop_controller(signal.SIGTERM)
        instance.start()
        assert instance.api.controller().instance_id != first
        assert not list(Path("/tmp").glob(f".s.PGSQL.{instance.postgres_port}*")), "a socket or its lock in /tmp"
        postgres = [p for p in instance.processes() if "postgres" in " ".join(p.cmdline()[:1])]
        assert postgres
        maps = [Path(f"/proc/{p.pid}/maps").read_text() for p in postgres]
        assert not any("/dev/shm/PostgreSQL" in m for m in maps), "a segment in /dev/shm"
        assert any("pg_dynshmem" in m for m in maps), "no segment in the data folder"
        for process in instance.processes():
            with contextlib.suppress(psutil.NoSuchProcess):  # a helper listed a moment ago may have ended since
                process.kill()
    finally:
        instance.close()
    assert instance.processes() == []
    assert not instance.root.exists()


@marked("product")
def test_api_client_reads_a_scripted_build_as_harness_records_and_the_closed_instance_leaves_nothing() -> None:
    with PaperclipInstance(pace=0.01) as instance:
        api = instance.api
        lead = api.create_agent("Avery", "lead engineer")
        assert (lead.adapter, lead.model, lead.role) == ("scripted", "default", "lead engineer")
        # A cell's hard stop goes through Paperclip's own budgets (company and lead), read back as records.
        assert api.set_company_budget(1000).budget_cents == 1000 == api.company().budget_cents
        assert api.set_agent_budget(lead.id, 1000).budget_cents == 1000
        task = api.create_task("Build slugify", "Write slugify.py and deliver a ZIP.", lead.id)
        deadline = time.monotonic() + 60
        while not ((current := api.task(task.id)).settled and current.status == "done"):
            assert time.monotonic() < deadline, current.model_dump_json()[:2000]
            time.sleep(0.2)
        run = current.runs[-1]
        assert run.status == "succeeded" and run.identity.pid and run.identity.runner_instance_id
        assert any(r.tool == "write_file" and r.target == "slugify.py" for r in run.receipts)
        assert len(current.deliveries) == 1 and current.deliveries[0].run_id == run.id
        import hashlib

        assert hashlib.sha256(api.delivery_bytes(current.deliveries[0].id)).hexdigest() == current.deliveries[0].sha256
        assert set(api.workspace_hashes(task.id)) >= {"slugify.py"}
        # The run's token, which Paperclip minted, reached the harness through our runner: the scan knows its value.
        issued = instance.issued_secrets()
        assert issued["Paperclip agent JWT secret issued to the instance"] == instance.jwt_secret
        assert issued[f"run token issued to run {run.id}"].startswith("eyJ")
    # Closed as it stops in use (SIGTERM to the server, which stops its Postgres), after a build: nothing stays.
    assert instance.processes() == []
    assert not instance.root.exists()


@marked("product")
def test_a_hot_restart_does_not_adopt_a_process_adapter_run_and_the_driver_says_so() -> None:
    """Paperclip adopts live runs only on its hot restart (what ``paperclipai service restart`` asks for).

    That command needs a service manager; here the same request is written
    the way it writes it (``request_hot_restart``: an intent file naming the
    server pid), then the server gets SIGTERM and starts again. With 2026.824.1 the ``process``
    adapter's run is skipped ("adapter_not_local_child_process") although its
    runner is alive, so the driver must show no ``run_adopted`` activity and
    the run must not stay running as if adopted.
    """
    with PaperclipInstance(pace=1.0) as instance:
        api = instance.api
        lead = api.create_agent("Avery", "lead engineer")
        task = api.create_task("Build slugify", "Write slugify.py and deliver a ZIP.", lead.id)
        deadline = time.monotonic() + 60
        while (running := api.task(task.id).running_run_that_saved("slugify.py")) is None:
            assert time.monotonic() < deadline, "no running run saved slugify.py"
            time.sleep(0.1)
        assert instance.process is not None
        intent = instance.request_hot_restart()
        assert (intent["previousServerPid"], intent["drainRequired"]) == (instance.process.pid, False)
        instance.stop_controller(signal.SIGTERM)
        assert instance.process_alive(running.identity.pid or 0, running.identity.process_start_time or 0)
        instance.start()
        report = instance.hot_restart_report()
        assert report is not None and report["requestedAt"] == intent["requestedAt"]
        assert [(r["runId"], r["classification"], r["reason"]) for r in report["runs"]] == [
            (running.id, "skipped", "adapter_not_local_child_process")
        ]
        assert [a for a in api.activity() if a.kind == "run_adopted"] == []
        assert api.run(running.id).status == "failed" and api.run(running.id).error_code == "process_lost"
