"""A CLI on Paperclip writes files with its own tools, and Paperclip's run log is the CLI's own stream: our tool
server beside it sees the writes and keeps their receipts in the instance's folder, where the driver reads them
with the log's (the premise of every fault story: "slugify.py saved by the running run")."""

from __future__ import annotations

import time
from pathlib import Path

from everyday_paperclip.agent.runner import RECEIPTS_FOLDER
from everyday_paperclip.agent.tool_server import StderrReceipts
from everyday_paperclip.api import PaperclipApi
from harness.agents.loopback import LoopbackServer
from harness.agents.workspace_watch import WorkspaceWatch
from harness.core.product_records import Receipt


async def no_log(scope, receive, send) -> None:  # type: ignore[no-untyped-def]
    """Paperclip answering that a run has no stored log (404), as it does for a CLI run's log before it has one."""
    await send({"type": "http.response.start", "status": 404, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": b"{}"})


def test_a_file_the_cli_writes_is_a_write_receipt_of_its_run(tmp_path: Path) -> None:
    instance, workspace = tmp_path / "instance", tmp_path / "workspaces" / "avery"
    workspace.mkdir(parents=True)
    client = StderrReceipts("http://127.0.0.1:9", "token", "run-1", "agent", "company", tmp_path / "workspaces")
    client.receipts_file = instance / RECEIPTS_FOLDER / "run-1.jsonl"

    def saved(name: str, digest: str) -> None:
        client.receipt("write_file", name, detail=f"sha256 {digest}")

    with WorkspaceWatch(workspace, saved):
        (workspace / "slugify.py").write_text("print('slug')\n")
        time.sleep(0.6)
    client.receipt("deliver", "ZIP")
    server = LoopbackServer(no_log).start()
    try:
        api = PaperclipApi(server.url, "company", tmp_path / "workspaces", agent_settings={"instance": str(instance)})
        receipts = [Receipt.model_validate(r) for r in api._receipts("run-1")]
        assert api._receipts("another-run") == []
    finally:
        server.stop()
    assert [(r.tool, r.target) for r in receipts] == [("write_file", "slugify.py"), ("deliver", "ZIP")]
    assert receipts[0].detail.startswith("sha256 ") and len({r.id for r in receipts}) == 2
