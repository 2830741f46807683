"""What the replay server needs to know about a conversation, whatever its wire format.

Each protocol module reduces its request to a :class:`Conversation`: which
tools the CLI offers, how many of the model's tool calls have been answered
(the tool results it received), and the latest user message. The script's next turn is chosen from that alone.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from pydantic import BaseModel

from .steps import Script, Step, Turn, write_as_shell

# The shell tool of each CLI and the arguments it takes: codex (exec_command,
# or the older `shell`), Claude Code (Bash), OpenCode (bash).
SHELL_TOOLS: dict[str, Callable[[str], dict]] = {
    "exec_command": lambda cmd: {"cmd": cmd},
    "shell": lambda cmd: {"command": ["bash", "-lc", cmd]},
    "Bash": lambda cmd: {"command": cmd, "description": "Run a shell command"},
    "bash": lambda cmd: {"command": cmd, "description": "Run a shell command"},
}


class Conversation(BaseModel):
    tools: list[str]  # a namespaced tool (Codex's MCP tools) is "NAMESPACE::name"
    tool_calls_answered: int
    user_text: str = ""  # the words of the latest user message: a resumed session's new message shows here
    request_chars: int
    answered_since_user_text: int | None = None  # tool results after the latest user message (None: same as all)
    last_tool_result: str = ""
    # The first tool result after the latest user message: what the agent read first (its issue, where the
    # product's prompt names it without its request).
    first_tool_result: str = ""
    # The words that opened the session, when a later user message brought new ones (a resumed session): a product
    # that resumes its agent with the person's words as they are is known by its opening prompt (vibe-kanban's).
    opening_text: str = ""
    # The tool results before the latest user message: what the agent read earlier in a session the product resumed
    # (a Paperclip agent's runs on one issue share a session), by which a model knows what it already answered.
    earlier_results: list[str] = []

    def step(self, per_message: bool) -> int:
        """Where the script stands: all answered calls, or (per message) those since the latest user message."""
        if per_message and self.answered_since_user_text is not None:
            return self.answered_since_user_text
        return self.tool_calls_answered

    @property
    def is_agent_turn(self) -> bool:
        """Side requests (titles, summaries) offer no shell tool: they get a short answer, not a step."""
        return any(name in SHELL_TOOLS for name in self.tools)


def text_of(content: object, kinds: tuple[str, ...] = ("text", "input_text")) -> str:
    """The words in a message's content, whether a plain string or a list of typed parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(part.get("text", "")) for part in content if isinstance(part, dict) and part.get("type") in kinds
        )
    return ""


REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>\s*", re.DOTALL)


def without_reminders(text: str) -> str:
    """A user message's words without the notes a CLI adds to it (Claude Code's ``<system-reminder>`` blocks)."""
    return REMINDER.sub("", text).strip()


def without_unoffered_tools(script: Script, tools: list[str]) -> Script:
    """The script, for a CLI offered none of the product tools it uses: those steps left out, the rest as it is.

    Such an agent works with its CLI's own tools alone (vibe-kanban's Claude
    Code: the product commits its files when the run ends and moves the task
    to review itself), so its words are its report. A CLI offered some of
    them keeps every step: a missing one is then an error (:func:`product_tool`).
    """
    used = {step.tool for step in script.steps if step.kind == "tool"}
    if not used or any(_offered(tool, tools) for tool in used):
        return script
    return script.model_copy(update={"steps": [step for step in script.steps if step.kind != "tool"]})


def _offered(short: str, tools: list[str]) -> bool:
    try:
        product_tool(short, tools)
    except LookupError:
        return False
    return True


def last_user_text(messages: list[dict]) -> str:
    """The latest user message that has words (tool results travel as user messages too)."""
    for message in reversed(messages):
        if message.get("role") == "user" and message.get("type", "message") == "message":
            text = text_of(message.get("content"))
            if text:
                return text
    return ""


class ToolCall(BaseModel):
    name: str
    arguments: dict


class Reply(BaseModel):
    """One rendered model response, before any wire format: words, maybe one tool call, token usage."""

    text: str
    tool_call: ToolCall | None
    think_s: float = 0  # how long the server holds the answer: the model's thinking time
    input_tokens: int
    cached_tokens: int
    output_tokens: int


def product_tool(short: str, tools: list[str]) -> str:
    """The name a CLI gave the product's tool: ``mcp__testbed__deliver`` (Claude), ``testbed_deliver``
    (OpenCode), ``mcp__testbed::deliver`` (a Codex namespace), or the bare name."""
    for name in tools:
        if name == short or name.endswith(("__" + short, "::" + short, "_" + short)):
            return name
    raise LookupError(f"the CLI offers no product tool {short!r}: {tools}")


LAST_SHA256 = re.compile(r"sha256\W+([0-9a-f]{64})")
# ``{last:NAME}``: the value of the field NAME in the latest tool result (a request's id, a decision, a result).
LAST_FIELD = re.compile(r"\{last:([a-z_]+)\}")


def listed(text: str, name: str) -> list[object]:
    """The list under ``"name"`` in a tool result (the first found; empty when there is none). A CLI may hand the
    result back as JSON inside JSON, so every string that holds JSON is looked into too."""
    start = min((at for at in (text.find("{"), text.find("[")) if at >= 0), default=-1)
    try:
        pending: list[object] = [json.JSONDecoder().raw_decode(text, start)[0]] if start >= 0 else []
    except ValueError:
        return []
    while pending:
        value = pending.pop(0)
        if isinstance(value, dict):
            if isinstance(value.get(name), list):
                return list(value[name])
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
        elif isinstance(value, str) and value.lstrip()[:1] in ("{", "["):
            try:
                pending.append(json.loads(value))
            except ValueError:
                continue
    return []


def field(text: str, name: str, newest: bool = True) -> str:
    """The newest (else the first) ``"name": value`` in a tool result, as plain text. A CLI may hand the result
    back as JSON inside JSON (and a tool's own result may hold JSON as a string), so each failed look unescapes
    one level."""
    for _ in range(4):
        found = re.findall(rf'"{name}"\s*:\s*("(?:[^"\\]|\\.)*"|[^,}}\]\s]+)', text)
        if found:
            value = found[-1] if newest else found[0]
            return str(json.loads(value)) if value.startswith('"') else value
        text = text.replace("\\\\", "\0").replace('\\"', '"').replace("\0", "\\")
    return "unknown"


def filled(arguments: dict, last_tool_result: str) -> dict:
    """String arguments with ``{last_sha256}`` (the newest sha256 the latest tool result names) and
    ``{last:NAME}`` (a field of it) filled in."""
    found = LAST_SHA256.findall(last_tool_result)
    value = found[-1] if found else "unknown"

    def fill(item: object) -> object:
        if not isinstance(item, str):
            return item
        item = item.replace("{last_sha256}", value)
        return LAST_FIELD.sub(lambda match: field(last_tool_result, match.group(1)), item)

    return {key: fill(item) for key, item in arguments.items()}


def tool_call(step: Step, tools: list[str], last_tool_result: str = "") -> ToolCall:
    """A script step as a tool call: a product tool by the CLI's name for it, else the CLI's own shell tool
    (writes become a heredoc)."""
    if step.kind == "tool":
        return ToolCall(name=product_tool(step.tool, tools), arguments=filled(step.arguments, last_tool_result))
    name = next(name for name in SHELL_TOOLS if name in tools)
    command = write_as_shell(step) if step.kind == "write" else step.command
    return ToolCall(name=name, arguments=SHELL_TOOLS[name](command))


def reply(script: Script, conversation: Conversation) -> Reply:
    """The next turn of the script for this conversation, with realistic token counts.

    Tokens are about four characters each: the input is the whole request the
    CLI sent (its system prompt and tool schemas are most of it, as with a real
    model), and after the first call most of it counts as cached.
    """
    if conversation.is_agent_turn:
        turn = script.turn_after(conversation.step(script.per_message))
    else:
        turn = Turn(text="Agent session")
    call = tool_call(turn.action, conversation.tools, conversation.last_tool_result) if turn.action else None
    input_tokens = conversation.request_chars // 4 + script.extra_input_tokens
    cached = input_tokens * 3 // 4 if conversation.tool_calls_answered else 0
    output_chars = len(turn.text) + (len(json.dumps(call.arguments)) if call else 0)
    return Reply(
        text=turn.text,
        tool_call=call,
        think_s=turn.think_s,
        input_tokens=max(input_tokens, 1),
        cached_tokens=cached,
        output_tokens=output_chars // 4 + 16,
    )
