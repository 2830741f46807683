"""Replay scripts: product-neutral steps a model "decides" on, one per turn.

A script says what a competent (or deliberately faulty) agent would do:
run this shell command, write this file, say this text, finish. The protocol
modules render each step into their wire format's tool calls; which step
comes next is read from the conversation the CLI sends (how many tool calls
it has already had answered), so the server keeps no session state and a
resumed or retried conversation lands on the right step.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterator
from typing import Literal

from pydantic import BaseModel

from . import reference


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


def _build() -> Script:
    files = reference.files()
    return Script(
        name="build",
        description="Writes the reference slugify project, runs its tests, finishes with a summary.",
        steps=[
            say("I'll write the slugify tool, its README and a test, then run the tests."),
            *[write(path, content) for path, content in files.items()],
            shell("python3 -m unittest discover -s tests -v"),
            shell('python3 slugify.py "Hello, World!"'),
            finish(
                "Done: slugify.py prints the slug of its argument (--separator, --max-length); README.md explains it; the tests pass."
            ),
        ],
    )


def _ignores_late_message() -> Script:
    files = reference.files_without_late_requirement()
    return Script(
        name="ignores-late-message",
        description="Builds without the late requirement (--max-length) and never reads new messages: the oracle must catch it.",
        steps=[
            *[write(path, content) for path, content in files.items()],
            shell("python3 -m unittest discover -s tests"),
            finish("Done."),
        ],
    )


def _environment_dump() -> Script:
    return Script(
        name="environment-dump",
        description="Builds, then writes its whole environment into the workspace: the secret scan must catch it.",
        steps=[
            *_build().steps[1:-1],
            shell("env > environment.txt; ls -la"),
            finish("Done (and I saved my environment for debugging)."),
        ],
    )


def _over_budget() -> Script:
    return Script(
        name="over-budget",
        description="Keeps making tool calls with a heavy context, never finishing on its own: the budget must stop it.",
        steps=[shell("ls -la"), shell("cat slugify.py 2>/dev/null || true")],
        repeat_from=0,
        extra_input_tokens=120_000,
    )


def _never_finishes() -> Script:
    return Script(
        name="never-finishes",
        description="Loops on cheap tool calls forever: the deadline must end it and leave nothing running.",
        steps=[shell("sleep 1; echo still working")],
        repeat_from=0,
    )


SCRIPTS: dict[str, Callable[[], Script]] = {
    "build": _build,
    "ignores-late-message": _ignores_late_message,
    "environment-dump": _environment_dump,
    "over-budget": _over_budget,
    "never-finishes": _never_finishes,
}


# Scripts that read the conversation: ``story`` decides from the latest user message what
# to do; ``story-paced`` does the same with a pause after each file (a story's fault window).
# ``story-ignores-late-message`` and ``story-environment-dump`` misbehave on purpose (calibration).
# ``story-reads-task`` reads new messages through the product's read_task tool mid-turn (tests of that path).
CONVERSATIONAL = ("story", "story-paced", "story-ignores-late-message", "story-environment-dump", "story-reads-task")
STORY_PACE_S = 2.0


def script(name: str, user_text: str = "", pace_s: float = STORY_PACE_S, first_read: str = "") -> Script:
    """The named script; a conversational one is chosen from the latest user message.

    ``pace_s`` is the paced scripts' pause after each file: a product whose UI
    answers slower needs a longer window for a person to act in (the harness
    scales it by the environment's ``fault_window_scale``). ``first_read`` is
    the first tool result since that message (the issue a Paperclip agent
    read, where its wake prompt names the issue without its request).
    """
    if name in CONVERSATIONAL:
        from .stories import MISBEHAVING, PROBES, for_message

        variants = {**MISBEHAVING, **PROBES}
        if name in variants:
            return variants[name](user_text, pace_s)
        return for_message(user_text, pace_s if name == "story-paced" else 0, first_read)
    try:
        return SCRIPTS[name]()
    except KeyError:
        raise ValueError(f"unknown replay script {name!r}; known: {sorted([*SCRIPTS, *CONVERSATIONAL])}") from None
