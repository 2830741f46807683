"""Replay steps: the product-neutral things a model "decides" on, one per turn, and the script that holds them.

A script says what a competent (or deliberately faulty) agent would do:
run this shell command, write this file, say this text, finish. The protocol
modules render each step into their wire format's tool calls; which step
comes next is read from the conversation the CLI sends (how many tool calls
it has already had answered), so the server keeps no session state and a
resumed or retried conversation lands on the right step.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from typing import Literal

from pydantic import BaseModel


class Step(BaseModel):
    """One thing the scripted model does: a tool call, some words, or the end of its turn."""

    kind: Literal["shell", "write", "tool", "say", "finish"]
    command: str = ""
    path: str = ""
    content: str = ""
    text: str = ""
    tool: str = ""  # a product tool (MCP), by its own name: each CLI qualifies it its own way
    arguments: dict = {}  # string values may hold ``{last_sha256}``: filled from the latest tool result
    pause_after_s: float = 0  # seconds the model thinks once this step's result is back (the server holds its answer)


class Turn(BaseModel):
    """What one model response carries: optional words, then one tool call or the end."""

    text: str = ""
    action: Step | None = None  # None: the turn ends with `text` as the final message
    think_s: float = 0  # how long the server holds this turn's answer (model thinking time)


def shell(command: str) -> Step:
    return Step(kind="shell", command=command)


def write(path: str, content: str) -> Step:
    return Step(kind="write", path=path, content=content)


def use(tool: str, **arguments: object) -> Step:
    """Call one of the product's MCP tools (``deliver``, ``comment``, ``set_status``, ...)."""
    return Step(kind="tool", tool=tool, arguments=arguments)


def say(text: str) -> Step:
    return Step(kind="say", text=text)


def finish(text: str) -> Step:
    return Step(kind="finish", text=text)


def write_as_shell(step: Step) -> str:
    """A write step as one shell command, for CLIs whose only tool is a shell.

    A quoted heredoc keeps the content byte for byte (no expansion); the
    delimiter is chosen so it cannot occur in the content.
    """
    delimiter = "REPLAY_EOF"
    while delimiter in step.content:
        delimiter += "_"
    folder = step.path.rsplit("/", 1)[0] if "/" in step.path else ""
    mkdir = f"mkdir -p {shlex.quote(folder)} && " if folder else ""
    body = step.content if step.content.endswith("\n") else step.content + "\n"
    return f"{mkdir}cat > {shlex.quote(step.path)} <<'{delimiter}'\n{body}{delimiter}"


class Script(BaseModel):
    """A named, finite or endless sequence of steps, plus how heavy its context looks.

    ``extra_input_tokens`` stands for context a real agent would carry (files
    it read, long tool output) so budgets are reached in a few calls.
    """

    name: str
    description: str
    steps: list[Step]
    repeat_from: int | None = None  # endless: after the last step, go on from this index
    extra_input_tokens: int = 0
    per_message: bool = False  # restarts at each new user message (a resumed session starts the new message's script)

    def turns(self) -> Iterator[Turn]:
        """Group the steps into turns: words ride along with the next tool call."""
        index, pending, think = 0, [], 0.0
        while index < len(self.steps):
            step = self.steps[index]
            index += 1
            if step.kind == "say":
                pending.append(step.text)
                continue
            if step.kind == "finish":
                yield Turn(text="\n\n".join([*pending, step.text]), think_s=think)
                return
            yield Turn(text="\n\n".join(pending), action=step, think_s=think)
            pending, think = [], step.pause_after_s
            if index == len(self.steps) and self.repeat_from is not None:
                index = self.repeat_from
        yield Turn(text="\n\n".join([*pending, "Done."]), think_s=think)

    def turn_after(self, tool_calls_answered: int) -> Turn:
        """The turn that follows `tool_calls_answered` answered tool calls (every turn but the last has one)."""
        for position, turn in enumerate(self.turns()):
            if position == tool_calls_answered or turn.action is None:
                return turn
        raise AssertionError("turns() always ends with a final turn")
