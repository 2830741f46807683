"""An execution process's normalized logs, followed as vibe-kanban serves them: its conversation and its tool steps.

vibe-kanban serves each process's log as server-sent events: the entries so
far, then each new one as the agent writes it (JSON patches on
``/entries/<n>``), then ``finished`` once the process has ended. The stream
of a running process never ends by itself, so a :class:`ProcessLog` follows
it in a thread of its own and answers from what it has read: a read never
waits on the agent. What it holds is the product's own record:

- an assistant message is the agent's reply;
- a tool use is a receipt: a file the agent wrote (Claude Code's ``Write``
  or ``Edit``, shown as a file edit with its path, or a shell command that
  writes a file from a heredoc, ``cat > FILE <<'EOF'``, as an
  agent with only a shell writes one) is ``write_file`` on that path; any
  other tool keeps its name, its target being the ``target`` the scripted
  agent gives or the path or command Claude Code's tools name.
"""

from __future__ import annotations

import json
import re
import shlex
import threading
from typing import Any

import httpx

from harness.core.product_records import Receipt

FILE_WRITES = frozenset({"file_edit", "file_write"})
# A command that writes one file from a heredoc (after making its folder); vibe-kanban shows it in backticks.
HEREDOC_WRITE = re.compile(r"^`?(?:mkdir -p \S+ && )?cat > (?P<path>'[^']+'|[^\s'<>;&|]+) <<")
RECONNECT_S = 0.5


class ProcessLog:
    """One process's entries, kept current by a daemon thread until the product says ``finished``."""

    def __init__(self, client: httpx.Client, process_id: str) -> None:
        self._client = client
        self.process_id = process_id
        self._url = f"/api/execution-processes/{process_id}/normalized-logs"
        self._entries: dict[int, dict[str, Any]] = {}
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self.finished = threading.Event()
        self._thread = threading.Thread(target=self._follow, name=f"vibe-kanban-log-{process_id[:8]}", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._closed.set()

    def _follow(self) -> None:
        """Read the stream until ``finished``; a dropped stream is read again from its start (entries are by index)."""
        while not self._closed.is_set():
            try:
                with self._client.stream("GET", self._url, timeout=httpx.Timeout(30.0, read=None)) as response:
                    event = ""
                    for line in response.iter_lines():
                        if line.startswith("event:"):
                            event = line.partition(":")[2].strip()
                            if event == "finished":
                                self.finished.set()
                                return
                        elif line.startswith("data:") and event == "json_patch":
                            self._apply(json.loads(line.partition(":")[2]))
            except (httpx.HTTPError, json.JSONDecodeError):
                pass  # the server restarted or went away: read again while the instance lives
            self._closed.wait(RECONNECT_S)

    def _apply(self, patch: list[dict[str, Any]]) -> None:
        with self._lock:
            for op in patch:
                index = op["path"].rsplit("/", 1)[-1]
                if not index.isdigit():
                    continue
                if op["op"] in ("add", "replace"):
                    self._entries[int(index)] = op["value"]
                elif op["op"] == "remove":
                    self._entries.pop(int(index), None)

    def entries(self) -> list[dict[str, Any]]:
        """The normalized entries read so far, in order."""
        with self._lock:
            ordered = [self._entries[n] for n in sorted(self._entries)]
        return [e["content"] for e in ordered if e.get("type") == "NORMALIZED_ENTRY"]

    def replies(self) -> list[str]:
        return [e["content"] for e in self.entries() if e["entry_type"].get("type") == "assistant_message"]

    def receipts(self, at: str) -> list[Receipt]:
        """The tool steps read so far as receipts (``at``: when the run started; entries carry no time here)."""
        return receipts_of(self.entries(), self.process_id, at)


def receipts_of(entries: list[dict[str, Any]], process_id: str, at: str) -> list[Receipt]:
    """The tool uses among a process's normalized entries, as receipts in order."""
    found: list[Receipt] = []
    for entry in entries:
        kind = entry["entry_type"]
        if kind.get("type") != "tool_use":
            continue
        action = kind.get("action_type") or {}
        tool = kind.get("tool_name") or "tool"
        written = (
            HEREDOC_WRITE.match(str(action.get("command") or "")) if action.get("action") == "command_run" else None
        )
        if action.get("action") in FILE_WRITES:
            tool, target = "write_file", str(action.get("path") or "")
        elif written is not None:
            tool, target = "write_file", shlex.split(written.group("path"))[0]
        else:
            arguments = action.get("arguments") or (entry.get("metadata") or {}).get("input") or {}
            target = str(arguments.get("target") or action.get("path") or action.get("command") or "")
        result = action.get("result")
        detail = result.get("value") if isinstance(result, dict) else None
        found.append(
            Receipt(
                id=f"{process_id}:{len(found) + 1}",
                seq=len(found) + 1,
                tool=tool,
                target=target,
                ok=True,
                detail=detail if isinstance(detail, str) else "",
                created_at=entry.get("timestamp") or at,
            )
        )
    return found
