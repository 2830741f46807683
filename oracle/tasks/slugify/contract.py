"""The build-revise task contract: the words a story sends and the facts the oracle grades.

This is the single place the contract lives. Stories send these texts to the
agent verbatim; the oracle derives every check from the facts below. Keeping
both here means a change of wording can never drift away from the grading.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

Mode = Literal["base", "separator", "max-length", "separator+max-length"]
MODES: tuple[Mode, ...] = ("base", "separator", "max-length", "separator+max-length")

SOURCE_FILE = "slugify.py"

BUILD_TASK_TITLE = "Build a slugify command-line tool"

BUILD_TASK = """\
Build a small, dependency-free Python command-line tool in a file named slugify.py.

Given one positional text argument it prints the slug of that text:
strip surrounding whitespace, lowercase it, replace every run of characters
outside ASCII a-z and 0-9 with a single hyphen, then strip leading and
trailing hyphens. For example "Hello World" prints "hello-world" and "!!!"
prints an empty line.

The module must also expose a function slugify(text) that returns the same
slug. Include a README that explains how to use it and automated tests.
Deliver the project as a ZIP."""

REVISION_SEPARATOR = """\
Please revise slugify.py: add an optional --separator option that accepts
either "-" or "_" (default "-") and uses it in place of the hyphen. Any other
value must be rejected with a non-zero exit status. Keep all earlier behaviour
unchanged, update the README and tests, and deliver a new ZIP."""

LATE_REQUIREMENT_MAX_LENGTH = """\
One more requirement: add an optional --max-length N option, where N is a
positive integer. Truncate the final slug to at most N characters, then remove
any trailing separator left by the cut. Anything that is not a positive
integer must be rejected with a non-zero exit status. Keep everything else as
it is, update the README and tests, and deliver a new ZIP."""

DELEGATE_TASK_TITLE = "Have a teammate build the slugify command-line tool"


def delegation_task(teammate: str) -> str:
    """The lead's task: the build contract, to be done by ``teammate`` through one child task.

    The first sentence is the only place the teammate is named, so the child
    task (the body without that sentence) is exactly the build contract.
    """
    return (
        f"Ask your teammate {teammate} to build this through one child task, and tell me which delivery is final.\n\n"
        f"{BUILD_TASK}"
    )


def nonce_request(nonce: str) -> str:
    """A change of direction after Stop: no more building, only a short reply that proves it was read."""
    return f"Change of plan: stop the earlier work. Reply with one short message that contains the nonce {nonce}."


class SlugFact(BaseModel):
    """One input and the exact slug the contract demands for it."""

    text: str
    slug: str
    options: tuple[str, ...] = ()


BASE_FACTS: tuple[SlugFact, ...] = (
    SlugFact(text="Hello World", slug="hello-world"),
    SlugFact(text="  Queue--Ready!!  ", slug="queue-ready"),
    SlugFact(text="Already-Fine", slug="already-fine"),
    SlugFact(text="Café 東京", slug="caf"),
    SlugFact(text="!!!", slug=""),
    SlugFact(text="a__b  c", slug="a-b-c"),
    SlugFact(text="123", slug="123"),
    SlugFact(text="", slug=""),
)

SEPARATOR_FACTS: tuple[SlugFact, ...] = (
    SlugFact(text="Hello World", slug="hello_world", options=("--separator", "_")),
    SlugFact(text="  Queue--Ready!!  ", slug="queue_ready", options=("--separator", "_")),
    SlugFact(text="Hello World", slug="hello-world", options=("--separator", "-")),
)
INVALID_SEPARATORS: tuple[str, ...] = (".", "", "--", "__", "+", " ")

MAX_LENGTH_FACTS: tuple[SlugFact, ...] = (
    SlugFact(text="  Queue--Ready!!  ", slug="queue-r", options=("--max-length", "7")),
    SlugFact(text="  Queue--Ready!!  ", slug="queue", options=("--max-length", "6")),
    SlugFact(text="  Queue--Ready!!  ", slug="q", options=("--max-length", "1")),
    SlugFact(text="  Queue--Ready!!  ", slug="queue-ready", options=("--max-length", "100")),
)
INVALID_MAX_LENGTHS: tuple[str, ...] = ("0", "-1", "-5", "abc", "2.5", "")

COMBINED_FACTS: tuple[SlugFact, ...] = (
    SlugFact(
        text="  Queue--Ready!!  ",
        slug="queue",
        options=("--separator", "_", "--max-length", "6"),
    ),
    SlugFact(
        text="  Queue--Ready!!  ",
        slug="queue_r",
        options=("--separator", "_", "--max-length", "7"),
    ),
)


def requires_separator(mode: Mode) -> bool:
    return "separator" in mode.split("+")


def requires_max_length(mode: Mode) -> bool:
    return "max-length" in mode.split("+")
