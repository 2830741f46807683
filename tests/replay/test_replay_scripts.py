"""The replay scripts and the server's protocols, spoken to over real HTTP (no CLI needed)."""

from __future__ import annotations

import json

import httpx
import pytest

from harness.replay import reference
from harness.replay.scripts import SCRIPTS, script
from harness.replay.steps import write, write_as_shell


def test_build_plays_the_reference_files_then_runs_the_tests_then_finishes():
    turns = list(script("build").turns())
    writes = [turn.action for turn in turns if turn.action and turn.action.kind == "write"]
    assert {step.path: step.content for step in writes} == reference.files()
    assert [turn.action.kind if turn.action else "finish" for turn in turns][-3:] == ["shell", "shell", "finish"]
    assert turns[0].text, "the first turn says what the agent is about to do"


def test_endless_scripts_never_finish_and_finite_ones_repeat_their_end():
    for name in ("over-budget", "never-finishes"):
        assert script(name).turn_after(1000).action is not None
    assert script("build").turn_after(1000).action is None


def test_the_late_requirement_is_missing_only_from_the_script_that_ignores_it():
    ignored = {step.path: step.content for step in script("ignores-late-message").steps if step.kind == "write"}
    assert "--max-length" not in ignored["slugify.py"] and "--separator" in ignored["slugify.py"]
    assert "--max-length" in reference.files()["slugify.py"]


def test_a_heredoc_write_keeps_content_byte_for_byte(tmp_path):
    import subprocess

    content = "line with $HOME and `ticks` and 'quotes'\nREPLAY_EOF inside\n"
    subprocess.run(["bash", "-c", write_as_shell(write("sub/dir/file.txt", content))], cwd=tmp_path, check=True)
    assert (tmp_path / "sub/dir/file.txt").read_text() == content


def test_unknown_script_names_the_known_ones():
    with pytest.raises(ValueError, match="build"):
        script("nope")
    assert set(SCRIPTS) >= {"build", "ignores-late-message", "environment-dump", "over-budget", "never-finishes"}


def _sse_data(text: str) -> list[dict]:
    return [
        json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:") and line[5:].strip() != "[DONE]"
    ]


def test_responses_stream_carries_a_function_call_then_completed_usage(replay):
    body = {
        "model": "gpt-5-codex",
        "stream": True,
        "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}],
        "tools": [{"type": "function", "name": "exec_command", "parameters": {}}],
    }
    events = _sse_data(httpx.post(replay.url + "/v1/responses", json=body).text)
    done = [event["item"] for event in events if event["type"] == "response.output_item.done"]
    assert [item["type"] for item in done] == ["message", "function_call"]
    assert "cat > slugify.py" in json.loads(done[1]["arguments"])["cmd"]
    assert events[-1]["type"] == "response.completed" and events[-1]["response"]["usage"]["input_tokens"] > 0


def test_messages_stream_answers_a_tool_result_with_the_next_step(replay):
    history = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]},
    ]
    body = {
        "model": "claude-sonnet-4-5",
        "stream": True,
        "max_tokens": 100,
        "messages": history,
        "tools": [{"name": "Bash", "input_schema": {}}],
    }
    events = _sse_data(httpx.post(replay.url + "/v1/messages?beta=true", json=body).text)
    assert [event["type"] for event in events][0] == "message_start" and events[-1]["type"] == "message_stop"
    partial = "".join(
        event["delta"].get("partial_json", "") for event in events if event["type"] == "content_block_delta"
    )
    assert "cat > README.md" in json.loads(partial)["command"]
    assert next(event for event in events if event["type"] == "message_delta")["usage"]["output_tokens"] > 0


def test_chat_completion_without_tools_is_a_side_request_answered_in_words(replay):
    body = {"model": "gpt-5-mini", "stream": False, "messages": [{"role": "user", "content": "title?"}]}
    answer = httpx.post(replay.url + "/v1/chat/completions", json=body).json()
    assert answer["choices"][0]["message"]["content"] and "tool_calls" not in answer["choices"][0]["message"]
    assert answer["usage"]["prompt_tokens"] > 0


def test_a_script_is_chosen_by_path_and_unknown_paths_are_logged(replay):
    body = {
        "model": "gpt-5-mini",
        "stream": False,
        "messages": [{"role": "user", "content": "go"}],
        "tools": [{"type": "function", "function": {"name": "bash"}}],
    }
    answer = httpx.post(replay.url + "/scripts/never-finishes/v1/chat/completions", json=body).json()
    assert "sleep 1" in answer["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]
    assert httpx.get(replay.url + "/v1/models").status_code == 404
    assert [call.path for call in replay.calls()] == ["/scripts/never-finishes/v1/chat/completions", "/v1/models"]


# ---- the story script: what a competent agent does with each briefing ----------------


def _briefing(body: str, teammates: str = "", news: str = "") -> str:
    from harness.agents.instructions import TOOLS

    parts = ["You are Avery, lead engineer.", f"Your task #1: Build it\n\n{body}"]
    if teammates:
        parts.append(f"Your teammates: {teammates}.")
    if news:
        parts.append(f"New messages from the user:\n- {news}")
    return "\n\n".join([*parts, TOOLS])


def test_the_story_script_builds_revises_delegates_or_replies_from_the_briefing():
    from harness.agents.instructions import resume_prompt
    from harness.replay.scripts import script
    from oracle.tasks.slugify.contract import BUILD_TASK, REVISION_SEPARATOR, delegation_task, nonce_request

    build = script("story", _briefing(BUILD_TASK))
    assert build.name == "story-build" and [s.tool for s in build.steps if s.kind == "tool"] == [
        "deliver",
        "comment",
        "set_status",
    ]
    assert script("story", _briefing(BUILD_TASK, news=REVISION_SEPARATOR)).name == "story-revise"
    assert script("story", resume_prompt([{"body": REVISION_SEPARATOR}])).name == "story-revise"
    delegate = script("story", _briefing(delegation_task("Blake"), teammates="Blake"))
    child = next(s for s in delegate.steps if s.tool == "create_child_task")
    assert (
        child.arguments["assignee_name"] == "Blake"
        and "teammate" not in child.arguments["body"]
        and "slugify.py" in child.arguments["body"]
    )
    reply = script("story", resume_prompt([{"body": nonce_request("N1A2B3C4D5")}]))
    assert reply.name == "story-reply" and "N1A2B3C4D5" in reply.steps[0].arguments["body"]
    # The pace is the model's thinking time after each file it wrote (the server holds its next answer), never a
    # command the agent runs: a CLI may refuse a long foreground sleep.
    paced = script("story-paced", _briefing(BUILD_TASK))
    assert {s.pause_after_s for s in paced.steps if s.kind == "write"} == {2}
    assert not [s for s in paced.steps if "sleep" in s.command]
    turns = list(paced.turns())
    first_write = next(n for n, t in enumerate(turns) if t.action and t.action.kind == "write")
    assert turns[first_write].think_s == 0 and turns[first_write + 1].think_s == 2
    # A slower product's UI gets a longer window (the harness scales it by the environment's fault window).
    slower = script("story-paced", _briefing(BUILD_TASK), pace_s=30)
    assert {s.pause_after_s for s in slower.steps if s.kind == "write"} == {30}
    assert not [t for t in script("story", _briefing(BUILD_TASK), pace_s=30).turns() if t.think_s]


def test_a_qa_request_gets_the_slugify_tests_reference_suite_and_a_delegated_one_goes_to_the_teammate():
    from oracle.tasks.slugify_tests import reference as suite_reference
    from oracle.tasks.slugify_tests.contract import QA_TASK, TEST_MODULE, qa_delegation_task

    suite = script("story", _briefing(QA_TASK))
    written = {s.path: s.content for s in suite.steps if s.kind == "write"}
    assert suite.name == "story-test-suite" and written[TEST_MODULE] == suite_reference.files()[TEST_MODULE]
    assert [s.tool for s in suite.steps if s.kind == "tool"] == ["deliver", "comment", "set_status"]
    delegate = script("story", _briefing(qa_delegation_task("Morgan"), teammates="Morgan"))
    child = next(s for s in delegate.steps if s.tool == "create_child_task")
    assert child.arguments["assignee_name"] == "Morgan" and child.arguments["body"] == QA_TASK.strip()


def test_a_skill_request_creates_the_named_skill_once_through_the_products_tool():
    from stories.create_skill_studio import SKILL_REQUEST

    made = script("story", _briefing(SKILL_REQUEST))
    calls = [s for s in made.steps if s.kind == "tool"]
    assert made.name == "story-skill" and [s.tool for s in calls] == ["create_skill", "comment", "set_status"]
    assert calls[0].arguments["name"] == "How we write release notes"
    assert calls[0].arguments["body"].startswith("# How we write release notes\n")
    escaped = SKILL_REQUEST.replace('"', '\\"')  # OpenCode's prompt, every inner quote escaped
    assert script("story", _briefing(escaped)).steps[0].arguments["name"] == "How we write release notes"


def _paperclip_wake(*comments: tuple[str, str]) -> str:
    """Paperclip's wake prompt (2026.824.1, ``renderPaperclipWakePrompt``) for the comments that woke a run."""
    lines = [
        "## Paperclip Wake Payload",
        "",
        "- reason: issue_commented",
        "- issue: PAP-1 Build it",
        "",
        "New comments in order:",
    ]
    for n, (author, body) in enumerate(comments, 1):
        lines += [f"{n}. comment c-{n} at 2026-11-30T17:30:4{n}.000Z by {author}", body]
    return "\n".join([*lines, "", "Execution contract: take concrete action in this heartbeat."])


def test_the_story_script_reads_the_users_latest_comment_from_paperclips_wake_prompt():
    from harness.replay.scripts import script
    from oracle.tasks.slugify.contract import REVISION_SEPARATOR, nonce_request

    revision = _paperclip_wake(("user local-board", REVISION_SEPARATOR), ("agent a-1", "Working on it."))
    assert script("story", revision).name == "story-revise"
    reply = script("story", _paperclip_wake(("user local-board", nonce_request("N1A2B3C4D5"))))
    assert reply.name == "story-reply" and "N1A2B3C4D5" in reply.steps[0].arguments["body"]
    assert script("story", "You are agent Avery in Paperclip. Work on your assigned issue.").name == "story-build"


def _issue_read(body: str, status: str = "todo", escaped: bool = False, new: tuple[str, ...] = ()) -> str:
    """What the tool server's read_task answers for an issue (as Claude hands it back; codex nests it in JSON)."""
    view = {
        "id": "i-1",
        "title": "Build it",
        "body": body,
        "status": status,
        "comments": [{"body": "an old note"}, *({"body": text} for text in new)],
        "new_messages": [{"id": f"c-{n}", "text": text} for n, text in enumerate(new)],
    }
    text = json.dumps(view, indent=1)
    return json.dumps({"content": [{"type": "text", "text": text}]}) if escaped else text


def test_woken_by_paperclip_without_the_request_the_story_script_reads_the_issue_first_and_acts_on_it():
    """Paperclip's wake prompt names the issue ("- issue: PAP-1 Build it") but not its request."""
    from oracle.tasks.slugify.contract import BUILD_TASK, delegation_task

    wake = _paperclip_wake(("agent a-1", "Delivered."))
    first = script("story", wake)
    assert first.name == "story-read-issue" and first.turn_after(0).action.tool == "read_task"
    built = script("story", wake, first_read=_issue_read(BUILD_TASK))
    assert built.name == "story-build" and [s.tool for s in built.steps[:1]] == ["read_task"]
    for escaped in (False, True):
        delegated = script("story", wake, first_read=_issue_read(delegation_task("Blake"), escaped=escaped))
        child = delegated.turn_after(1).action
        assert delegated.name == "story-delegate" and child.tool == "create_child_task"
        assert child.arguments["assignee_name"] == "Blake" and "slugify.py" in child.arguments["body"]
    done = script("story", wake, first_read=_issue_read(delegation_task("Blake"), status="done"))
    assert done.name == "story-nothing-left" and done.turn_after(1).action is None


def test_woken_for_the_issue_alone_the_story_script_takes_in_the_new_comments_its_read_returns():
    """A comment left while the agent was paused (or its run cut short) comes with the read, not the wake."""
    from oracle.tasks.slugify.contract import BUILD_TASK, REVISION_SEPARATOR, delegation_task, nonce_request

    wake = _paperclip_wake(("agent a-1", "Delivered."))
    for escaped in (False, True):
        read = _issue_read(BUILD_TASK, escaped=escaped, new=("an aside", REVISION_SEPARATOR))
        revised = script("story", wake, first_read=read)
        assert revised.name == "story-revise" and revised.steps[0].tool == "read_task"
        assert "--separator" in revised.turn_after(1).text
    replied = script("story", wake, first_read=_issue_read(BUILD_TASK, new=(nonce_request("N1A2B3C4D5"),)))
    assert replied.name == "story-reply" and "N1A2B3C4D5" in replied.steps[1].arguments["body"]
    handed_on = script("story", wake, first_read=_issue_read(delegation_task("Blake"), new=(REVISION_SEPARATOR,)))
    assert handed_on.name == "story-delegate"
    # Paperclip's own run for a comment that a read already handed over (and that run answered) finds nothing left.
    woken = _paperclip_wake(("user local-board", REVISION_SEPARATOR))  # its comment's id is c-1
    read = _issue_read(BUILD_TASK, escaped=True, new=("an aside", REVISION_SEPARATOR))  # ids c-0, c-1
    answered = script("story", woken, earlier=[read])
    assert answered.name == "story-answered-before" and answered.steps[0].arguments == {"status": "done"}
    assert script("story", woken, earlier=[_issue_read(BUILD_TASK, new=("an aside",))]).name == "story-revise"
    assert script("story", woken).name == "story-revise"


def test_metered_work_on_paperclip_takes_two_runs_the_first_leaves_the_issue_open_with_a_wake_scheduled():
    """The first run's disposition is Paperclip's "in progress with a live continuation path": after its progress
    comment it has the product wake it again for the issue (an issue monitor), and it neither delivers nor sets a
    status (a comment alone would leave the issue stranded, which Paperclip's contract forbids)."""
    from oracle.tasks.slugify.contract import BUILD_TASK

    wake = _paperclip_wake(("agent a-1", "Delivered."))
    metered = f"{BUILD_TASK}\n\nThis is metered work: every model call counts against your budget."
    first = script("story", wake, first_read=_issue_read(metered))
    assert first.name == "story-first-step"
    assert [s.kind for s in first.steps] == ["tool", "write", "tool", "tool", "finish"]
    assert first.steps[1].path == "slugify.py"
    assert [s.tool for s in first.steps if s.kind == "tool"] == ["read_task", "comment", "continue_later"]
    later = first.steps[3].arguments
    assert 0 < later["after_seconds"] <= 30 and "deliver" in later["next_step"]
    spoken = json.loads(_issue_read(metered))
    spoken["comments"].append({"author_kind": "agent", "body": first.steps[2].arguments["body"]})
    assert script("story", wake, first_read=json.dumps(spoken)).name == "story-build"
    assert script("story", wake, first_read=_issue_read(BUILD_TASK)).name == "story-build"


def test_product_tools_are_called_by_each_clis_own_name_for_them():
    from harness.replay.conversation import Reply, ToolCall, filled, product_tool
    from harness.replay.protocols import responses

    assert product_tool("deliver", ["Bash", "mcp__testbed__deliver"]) == "mcp__testbed__deliver"
    assert product_tool("deliver", ["bash", "testbed_deliver"]) == "testbed_deliver"
    assert product_tool("deliver", ["exec_command", "mcp__testbed::deliver"]) == "mcp__testbed::deliver"
    # Codex offers an MCP server's tools as a namespace; the call names the namespace and the tool apart.
    names = responses.tool_names(
        [{"type": "namespace", "name": "mcp__testbed", "tools": [{"type": "function", "name": "deliver"}]}]
    )
    assert names == ["mcp__testbed::deliver"]
    [item] = responses.output_items(
        Reply(
            text="", tool_call=ToolCall(name=names[0], arguments={}), input_tokens=1, cached_tokens=0, output_tokens=1
        )
    )
    assert (item["namespace"], item["name"]) == ("mcp__testbed", "deliver")
    sha = "a" * 64
    assert filled({"body": "final: {last_sha256}"}, f'"sha256": "{sha}"') == {"body": f"final: {sha}"}


def test_the_story_script_asks_the_user_for_decisions_and_reports_what_came_of_them():
    from harness.decisions.contract import EMAIL_TASK, document_task, notes_task
    from harness.replay.scripts import script

    def tools(name: str) -> list[tuple[str, dict]]:
        return [(s.tool, s.arguments) for s in script("story", name).steps if s.kind == "tool"]

    made = tools(_briefing(document_task("Launch notes", "Documents")))
    assert [tool for tool, _ in made] == [
        "list_connections",
        "call_service_action",
        "read_decision",
        "comment",
        "set_status",
    ]
    assert made[1][1]["arguments"] == {"title": "Launch notes"} and made[2][1] == {
        "request_id": "{last:interaction_id}"
    }
    quoted = _briefing(document_task("Launch notes", "Documents")).replace('"', '\\"')  # OpenCode's quoting
    assert script("story", quoted).name == "story-document"
    assert [tool for tool, _ in tools(_briefing(notes_task("Notion")))][:2] == ["request_connection", "read_decision"]
    assert [tool for tool, _ in tools(_briefing(EMAIL_TASK))][:2] == ["request_email_setup", "read_decision"]
    assert script("story", _briefing("Please build slugify.py.")).name == "story-build"  # the tools' words never count


def test_a_step_fills_fields_of_the_latest_tool_result_however_deeply_the_cli_quoted_it():
    from harness.replay.conversation import filled

    result = json.dumps({"request_id": 3, "decision": "approved", "result": json.dumps({"id": "DOC-12AB34CD"})})
    wrapped = json.dumps({"content": [{"type": "text", "text": result}]})
    for text in (result, json.dumps(result), wrapped, json.dumps(wrapped)):
        assert filled({"body": "{last:decision}: {last:id} (#{last:request_id})"}, text) == {
            "body": "approved: DOC-12AB34CD (#3)"
        }
    assert filled({"id": "{last:interaction_id}", "n": 1}, "no json here") == {"id": "unknown", "n": 1}


def _claude_turn(replay, messages: list[dict], tools: list[str]) -> tuple[str, dict | None]:
    """One Messages call as Claude Code makes it; the words and the tool call the replay answered with."""
    body = {
        "model": "claude-sonnet-4-5",
        "stream": True,
        "max_tokens": 100,
        "messages": messages,
        "tools": [{"name": name, "input_schema": {}} for name in tools],
    }
    events = _sse_data(httpx.post(replay.url + "/scripts/story/v1/messages?beta=true", json=body).text)
    words = "".join(e["delta"].get("text", "") for e in events if e["type"] == "content_block_delta")
    partial = "".join(e["delta"].get("partial_json", "") for e in events if e["type"] == "content_block_delta")
    return words, json.loads(partial) if partial else None


def test_vibe_kanbans_task_prompt_and_a_resumed_sessions_plain_follow_up_without_product_tools(replay):
    """vibe-kanban's Claude Code: ``Title: ...\\n\\nDescription:...``, Claude Code's reminders beside it, no tool of ours.

    The script builds with the shell alone and its last turn is words (the product commits the files and sets the
    task in review); the follow-up, resumed, is the person's words as they are: a revision, or the short reply.
    """
    from oracle.tasks.slugify.contract import BUILD_TASK, BUILD_TASK_TITLE, REVISION_SEPARATOR, nonce_request

    reminder = {"type": "text", "text": "<system-reminder>\nPrimary working directory: /w\n</system-reminder>"}
    opening = {
        "role": "user",
        "content": [reminder, {"type": "text", "text": f"Title: {BUILD_TASK_TITLE}\n\nDescription:{BUILD_TASK}"}],
    }
    tools = ["Bash", "Edit", "Write"]
    history = [opening]
    while True:
        words, call = _claude_turn(replay, history, tools)
        if call is None:
            break
        history += [
            {"role": "assistant", "content": [{"type": "tool_use", "id": f"t{len(history)}", "name": "Bash"}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{len(history)}", "content": "ok"}]},
        ]
    assert "Delivered slugify.py" in words and len(history) == 1 + 2 * 4  # three files and their tests, then words
    assert [c.script for c in replay.calls()] == ["story-build"] * 5

    history += [{"role": "assistant", "content": [{"type": "text", "text": words}]}]
    _, call = _claude_turn(
        replay, [*history, {"role": "user", "content": [reminder, {"type": "text", "text": REVISION_SEPARATOR}]}], tools
    )
    assert replay.calls()[-1].script == "story-revise" and "cat > slugify.py" in call["command"]
    words, call = _claude_turn(replay, [*history, {"role": "user", "content": nonce_request("N1A2B3C4D5")}], tools)
    assert replay.calls()[-1].script == "story-reply" and call is None and "N1A2B3C4D5" in words


def test_a_cli_offered_some_product_tools_keeps_every_step_and_one_offered_none_works_without_them():
    from harness.replay.conversation import without_unoffered_tools
    from harness.replay.stories import build

    script = build()
    assert without_unoffered_tools(script, ["Bash", "mcp__testbed__deliver"]) == script
    assert [s.kind for s in without_unoffered_tools(script, ["Bash"]).steps if s.kind == "tool"] == []
