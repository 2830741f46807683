"""Replay scripts by name: the fixed ones, and the conversational ones chosen from the latest user message.

A script says what a competent (or deliberately faulty) agent would do; its
steps are :mod:`harness.replay.steps`, the story-aware ones :mod:`harness.replay.stories`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from . import reference
from .steps import Script, finish, say, shell, write
from .stories import MISBEHAVING, PROBES, for_message


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


def script(
    name: str,
    user_text: str = "",
    pace_s: float = STORY_PACE_S,
    first_read: str = "",
    opening: str = "",
    earlier: Sequence[str] = (),
) -> Script:
    """The named script; a conversational one is chosen from the latest user message.

    ``pace_s`` is the paced scripts' pause after each file: a product whose UI
    answers slower needs a longer window for a person to act in (the harness
    scales it by the environment's ``fault_window_scale``). ``first_read`` is
    the first tool result since that message (the issue a Paperclip agent
    read, where its wake prompt names the issue without its request); ``opening``
    the words that opened a resumed session; ``earlier`` the tool results before that message.
    """
    if name in CONVERSATIONAL:
        variants = {**MISBEHAVING, **PROBES}
        if name in variants:
            return variants[name](user_text, pace_s)
        return for_message(user_text, pace_s if name == "story-paced" else 0, first_read, opening, earlier)
    try:
        return SCRIPTS[name]()
    except KeyError:
        raise ValueError(f"unknown replay script {name!r}; known: {sorted([*SCRIPTS, *CONVERSATIONAL])}") from None
