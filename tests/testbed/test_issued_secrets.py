"""The secrets a testbed instance hands out reach the harness as known values, so the evidence scan finds
them however they are framed, not only by the shape of their prefix."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from harness.agents import issued_secrets
from harness.evidence.recorder import EvidenceRecorder
from harness.products.testbed import TestbedInstance
from harness.products.testbed.secrets import SECRET_PATTERNS
from oracle.tasks.slugify.contract import BUILD_TASK, BUILD_TASK_TITLE


def test_the_ledger_lists_each_token_once_with_its_proxy_key_and_skips_a_cut_line(tmp_path: Path) -> None:
    ledger = tmp_path / issued_secrets.LEDGER_NAME
    issued_secrets.record_run_token(ledger, 1, "tbrun_one")
    issued_secrets.record_run_token(ledger, "7f0c", "pc-token")
    issued_secrets.record_run_token(ledger, "7f0c", "pc-token")  # a tool server told it again
    with ledger.open("a") as out:
        out.write('{"run_id": 2, "tok')  # a controller killed mid-write
    assert ledger.stat().st_mode & 0o777 == 0o600
    assert issued_secrets.read(ledger) == {
        "run token issued to run 1": "tbrun_one",
        "metering proxy key issued to run 1": issued_secrets.proxy_key("tbrun_one"),
        "run token issued to run 7f0c": "pc-token",
        "metering proxy key issued to run 7f0c": issued_secrets.proxy_key("pc-token"),
    }
    assert issued_secrets.read(ledger, proxy_keys=False) == {
        "run token issued to run 1": "tbrun_one",
        "run token issued to run 7f0c": "pc-token",
    }
    assert issued_secrets.read(tmp_path / "none.jsonl") == {}


def test_a_proxy_key_is_fixed_by_its_token_has_the_key_shape_and_does_not_contain_the_token() -> None:
    token = "tbrun_" + "a" * 43
    key = issued_secrets.proxy_key(token)
    assert key == issued_secrets.proxy_key(token) != issued_secrets.proxy_key(token + "b")
    assert SECRET_PATTERNS["metering proxy key"].fullmatch(key.encode()) and token[6:] not in key


@pytest.mark.e2e
def test_an_instance_tells_each_run_token_it_minted_and_the_scan_finds_one_by_value(tmp_path: Path) -> None:
    recorder = EvidenceRecorder(tmp_path / "package")
    with TestbedInstance(pace=0.05) as instance:
        agent = instance.api.create_agent(name="Avery", role="lead engineer")
        task = instance.api.create_task(BUILD_TASK_TITLE, BUILD_TASK, assignee_id=agent.id)
        instance.api.wait_until_done(task.id, timeout=60)
        issued = instance.issued_secrets()
        with sqlite3.connect(instance.data_dir / "testbed.sqlite3") as db:
            stored = {row[0]: row[1] for row in db.execute("SELECT id, token_hash FROM runs")}
        tokens = {label: value for label, value in issued.items() if label.startswith("run token issued to run")}
        assert len(tokens) == len(stored) >= 1
        for label, token in tokens.items():
            run_id = int(label.rsplit(" ", 1)[1])
            assert hashlib.sha256(token.encode()).hexdigest() == stored[run_id]
            assert issued[f"metering proxy key issued to run {run_id}"] == issued_secrets.proxy_key(token)
        # Without the product's shapes, only the known value can find the token a careless agent left behind.
        label, token = next(iter(tokens.items()))
        (instance.workspace(task.id) / "notes.txt").write_text(f"debug: authorization {token}\n")
        found = recorder.scan_workspaces(instance.agent_workspaces, instance.issued_secrets(), patterns=None)
    assert [(f.path, f.kind) for f in found] == [(f"agent workspace task-{task.id}/notes.txt", label)]
