"""The secret scan reads the agents' workspaces on disk after the run, not only what was delivered.

A real product and its scripted agent do real work; then a key is planted in
the workspace where the agent would have left it (never delivered), and the
attempt that scans it must fail naming the file and the kind, never the value.
"""

from __future__ import annotations

import io
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import pytest

from harness.core import registry
from harness.core.deadline import Deadline
from harness.core.settings import RunSettings
from harness.core.verdicts import Verdict
from harness.evidence.recorder import EvidenceRecorder
from harness.products.testbed import TestbedInstance
from harness.products.testbed.secrets import SECRET_PATTERNS
from harness.running.attempt import Conclusion, _finish
from oracle.tasks.slugify.contract import BUILD_TASK, BUILD_TASK_TITLE

pytestmark = pytest.mark.e2e  # starts a real product, runner or agent CLI in the test

FAST_PACE = 0.05

PROVIDER_KEY = "provider-key-" + "q7" * 16
SHAPED_KEY = "ghp_" + "Z" * 36


def _archive_with(name: str, text: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(name, text)
    return buffer.getvalue()


def test_a_key_left_in_an_agents_workspace_fails_the_attempt_by_file_and_kind(tmp_path: Path) -> None:
    known = {"provider key": PROVIDER_KEY}
    recorder = EvidenceRecorder(tmp_path / "results" / "c" / "cell" / "1-a")
    with TestbedInstance(pace=FAST_PACE) as instance:
        agent = instance.api.create_agent(name="Avery", role="lead engineer")
        task = instance.api.create_task(BUILD_TASK_TITLE, BUILD_TASK, assignee_id=agent.id)
        instance.api.wait_until_done(task.id, timeout=60)
        # A healthy run's workspace holds no secret: the scan finds nothing there.
        assert recorder.scan_workspaces(instance.agent_workspaces, known, SECRET_PATTERNS) == []
        workspace = instance.workspace(task.id)
        assert (workspace / "slugify.py").exists(), "the scan must read the folder the agent really worked in"
        (workspace / ".env").write_text(f"OPENAI_API_KEY={PROVIDER_KEY}\n")
        (workspace / "backup").mkdir()
        (workspace / "backup" / "old.zip").write_bytes(_archive_with("notes.txt", f"key {SHAPED_KEY}"))
        found = recorder.scan_workspaces(instance.agent_workspaces, known, SECRET_PATTERNS)
    folder = f"task-{task.id}"
    assert sorted((f.path, f.kind) for f in found) == [
        (f"agent workspace {folder}/.env", "provider key"),
        (f"agent workspace {folder}/backup/old.zip!notes.txt", "github token"),
    ]

    cell = next(c for c in registry.catalog().cells() if c.execution_id.endswith("scripted.local.build-revise"))
    record = _finish(
        recorder,
        cell,
        RunSettings(results=tmp_path / "results", campaign="c"),
        "1-a",
        None,
        Verdict.PASSED,
        "",
        datetime.now(UTC),
        Deadline(60),
        Conclusion(),
        SECRET_PATTERNS,
    )
    assert record.verdict is Verdict.FAILED
    assert record.reason.startswith("secret found in evidence: ")
    assert f"agent workspace {folder}/.env holds a provider key" in record.reason
    written = (recorder.folder / "attempt.json").read_text()
    assert PROVIDER_KEY not in written and SHAPED_KEY not in written
