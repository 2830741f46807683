"""A real Paperclip instance: isolated, restartable, torn down without leftovers; its API read into records.

Needs Paperclip installed (``make paperclip``, which ``make test`` runs):
a missing install fails these tests loudly, it never skips them.
"""

from __future__ import annotations

import signal
import time

from harness.products.paperclip.instance import PaperclipInstance


def test_instance_starts_restarts_and_leaves_nothing_behind() -> None:
    instance = PaperclipInstance()
    try:
        instance.start()
        assert instance.startup_s is not None and instance.startup_s < 30
        first = instance.api.controller().instance_id
        kinds = {" ".join(p.cmdline()[:1]) for p in instance.processes()}
        assert any("node" in k for k in kinds) and any("postgres" in k for k in kinds)
        instance.stop_controller(signal.SIGTERM)
        instance.start()
        assert instance.api.controller().instance_id != first
    finally:
        instance.close()
    assert instance.processes() == []
    assert not instance.root.exists()


def test_api_client_reads_a_scripted_build_as_harness_records() -> None:
    with PaperclipInstance(pace=0.01) as instance:
        api = instance.api
        lead = api.create_agent("Avery", "lead engineer")
        assert (lead.adapter, lead.model, lead.role) == ("scripted", "default", "lead engineer")
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
