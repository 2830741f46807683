"""A run's normalized log entries as receipts: the scripted agent's tool steps and Claude Code's file writes
(its Write, and a heredoc written through its shell)."""

from __future__ import annotations

from everyday_vibe_kanban.logs import receipts_of

STARTED = "2026-12-04T20:42:24Z"


def tool_use(name: str, action: dict[str, object]) -> dict[str, object]:
    return {"content": name, "entry_type": {"type": "tool_use", "tool_name": name, "action_type": action}}


def test_our_tool_steps_keep_their_name_target_and_result_and_claude_codes_writes_are_write_file() -> None:
    entries = [
        {"content": "Working on slugify.py", "entry_type": {"type": "assistant_message"}},
        tool_use(
            "read_task",
            {"action": "tool", "arguments": {"target": "task 1"}, "result": {"value": "1 new message(s), ids s:1"}},
        ),
        {  # its result not in yet: the call's input names the target
            **tool_use("write_file", {"action": "other", "description": "Tool: write_file"}),
            "metadata": {"input": {"target": "README.md"}},
        },
        tool_use("Write", {"action": "file_edit", "path": "slugify.py", "changes": []}),
        tool_use("Bash", {"action": "command_run", "command": "python3 -m unittest"}),
        tool_use(
            "Bash", {"action": "command_run", "command": "`mkdir -p tests && cat > 'tests/t 1.py' <<'EOF'\nx\nEOF`"}
        ),
        tool_use("Bash", {"action": "command_run", "command": "`cat > notes.md <<'EOF'\nx\nEOF\ncat notes.md`"}),
        tool_use("Bash", {"action": "command_run", "command": "cat slugify.py > copy.py"}),
    ]
    found = receipts_of(entries, "p1", STARTED)
    assert [(r.id, r.seq, r.tool, r.target) for r in found] == [
        ("p1:1", 1, "read_task", "task 1"),
        ("p1:2", 2, "write_file", "README.md"),
        ("p1:3", 3, "write_file", "slugify.py"),
        ("p1:4", 4, "Bash", "python3 -m unittest"),
        ("p1:5", 5, "write_file", "tests/t 1.py"),
        ("p1:6", 6, "write_file", "notes.md"),
        ("p1:7", 7, "Bash", "cat slugify.py > copy.py"),
    ]
    assert found[0].received_message_ids == ["s:1"] and found[0].created_at == STARTED
