"""The ``story`` replay script: what a competent agent does with each everyday request.

A real model reads its briefing and decides; this script does the same from
the words of the latest user message (the runner's briefing, or the new
messages a resumed session brings): build the project, revise it, delegate
it to the named teammate, or send the short reply with the nonce. Every path
works through the product's tools (deliver, comment, set_status, ...), the
way the briefing asks, and the files come from the oracle task's reference
solution, so a pass proves the adapters and the product, never a model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from . import reference
from .conversation import field, listed
from .formats import prompt_formats
from .steps import Script, Step, finish, say, shell, use, write

TEAMMATE = re.compile(
    r"\b(?:ask|have|tell)\s+(?:your\s+)?teammate\s+(?P<name>[A-Za-z][\w.-]*)[^.\n]*[.:]?[ \t]*\n*", re.IGNORECASE
)
NONCE = re.compile(r"\bnonce\b\W*(?:is\W+)?`?(?P<nonce>[A-Za-z0-9][A-Za-z0-9_-]{3,})`?", re.IGNORECASE)
TESTS = "python3 -m unittest discover -s tests -v"
# Requests that need a person's decision: a document in a connected service, a provider nobody connected,
# an email address of the agent's own.
# (OpenCode hands its prompt over quoted, with every inner quote escaped.)
DOCUMENT = re.compile(
    r'create a document titled\s+\\?"(?P<title>[^"\\]{1,120})\\?"\s+in the\s+(?P<service>[A-Za-z][\w .-]*?)\s+service'
)
PROVIDER = re.compile(r"\bin (?:our|the|my) (?P<provider>[A-Z][A-Za-z0-9]+) workspace\b")
EMAIL = re.compile(r"\ban email address\b", re.IGNORECASE)
# A company skill to write down, named by its first quoted phrase (create-skill-studio's request).
SKILL = re.compile(r'\bcreate a company skill\b\W*\\?"(?P<name>[^"\\\n]{3,120})\\?"', re.IGNORECASE)
# A QA request: a test suite for the slugify tool (the slugify-tests task's brief).
SUITE = re.compile(r"\bwrite an automated test suite\b", re.IGNORECASE)
# Work whose every model call counts against the agent's budget (budget-stop's request).
METERED = re.compile(r"\bmetered work\b", re.IGNORECASE)
# Metered work's next step, and how soon the agent asks to be woken for it: as soon as its first run is over. (A
# product that pauses the agent between runs pauses it first: the wake then waits until the pause is lifted; a later
# time could still be ahead when the person lifts it, and the product would only then take the work up.)
NEXT_STEP = "Write the README and the tests, run them, and deliver."
CONTINUE_AFTER_S = 1


def wrap_up(summary: str, files: list[str] | None = None) -> list[Step]:
    """Deliver (``files``, or the whole working folder), tell the user, mark the task done, end the turn."""
    deliver = use("deliver", files=files) if files else use("deliver")
    return [deliver, use("comment", body=summary), use("set_status", status="done"), finish(summary)]


def paced(steps: list[Step], pace_s: float) -> list[Step]:
    """A pause after each file written: a person (or a story) can act while the agent works.

    The pause is the model thinking before its next step (the server holds
    that answer), not a command the agent runs: a CLI may refuse a long
    foreground ``sleep`` (Claude Code does), and a real agent's pauses are
    its model's time anyway.
    """
    return [step.model_copy(update={"pause_after_s": pace_s}) if step.kind == "write" else step for step in steps]


def write_and_deliver(
    name: str, description: str, plan: str, files: dict[str, str], tests: str, summary: str, pace_s: float
) -> Script:
    """Say the plan, write the files, run their tests, then deliver them, tell the user and set the task done.

    Only the files written are delivered: an agent whose working folder outlives one task (a Paperclip agent's)
    holds an earlier task's files there too."""
    return Script(
        name=name,
        per_message=True,
        description=description,
        steps=[
            say(plan),
            *paced([write(path, content) for path, content in files.items()], pace_s),
            shell(tests),
            *wrap_up(summary, list(files)),
        ],
    )


def build(pace_s: float = 0) -> Script:
    return write_and_deliver(
        "story-build",
        "Writes the reference project, runs its tests, delivers it, comments, sets the task done.",
        "I'll write slugify.py, its README and tests, run them, and deliver.",
        reference.files(),
        TESTS,
        "Delivered slugify.py with a README and tests; the tests pass.",
        pace_s,
    )


def test_suite(pace_s: float = 0) -> Script:
    return write_and_deliver(
        "story-test-suite",
        "Writes test_slugify.py (and the tool it runs against), runs the suite, delivers, comments, sets done.",
        "I'll write test_slugify.py, run it against an implementation of the specification, and deliver.",
        reference.suite_files(),
        "python3 -m unittest -v test_slugify",
        "Delivered the test suite test_slugify.py; it passes against a correct slugify.py.",
        pace_s,
    )


def first_step(pace_s: float = 0) -> Script:
    """Metered work, woken in heartbeats: the first run writes the tool, reports, and leaves the issue in progress
    with a live continuation path (the product wakes it again for the issue), the README, the tests and the
    delivery left to that next run.

    Paperclip's execution contract asks every heartbeat for a disposition: an issue left in progress needs "a real
    scheduled monitor ... that will wake the responsible assignee" (its paperclip skill's final-disposition
    checklist); a comment saying what comes next is evidence, not such a path."""
    told = (
        "Metered work, so I go step by step: slugify.py is written. The README, the tests and the delivery come in"
        " my next run."
    )
    return Script(
        name="story-first-step",
        per_message=True,
        description="Writes the tool's source, comments on its progress, has the product wake it again for the"
        " rest, ends the run with the issue still in progress.",
        steps=[
            *paced([write("slugify.py", reference.files()["slugify.py"])], pace_s),
            use("comment", body=told),
            use("continue_later", after_seconds=CONTINUE_AFTER_S, next_step=NEXT_STEP),
            finish(told),
        ],
    )


def skill(topic: str) -> Script:
    """Write the practice down once as a company skill (the product's create_skill tool), say so, finish."""
    name = topic[:1].upper() + topic[1:]
    body = (
        f"# {name}\n\n## What goes in\n\nEvery user-visible change since the last release, one line each.\n\n"
        "## How entries are grouped\n\nAdded, Changed, Fixed, Removed; newest release first.\n\n"
        "## Who reviews them\n\nThe lead engineer reviews the notes before they are published.\n"
    )
    told = f"I added the company skill {name!r} to the library."
    return Script(
        name="story-skill",
        per_message=True,
        description="Creates the requested company skill once through the product's tool, comments, sets the task done.",
        steps=[
            use("create_skill", name=name, body=body),
            use("comment", body=told),
            use("set_status", status="done"),
            finish(told),
        ],
    )


def revise(request: str, pace_s: float = 0) -> Script:
    """A revision: the reference already honours every option, so the visible change is the README's record of it."""
    files = reference.files()
    asked = ", ".join(sorted(set(re.findall(r"--[a-z][a-z-]+", request)))) or "the requested change"
    readme = (
        files["README.md"].rstrip("\n")
        + f"\n\n## Revision\n\nRevised on request: {asked} (see the options above); tests updated.\n"
    )
    return Script(
        name="story-revise",
        per_message=True,
        description="Applies the user's new request (README and tests), runs the tests, delivers again, comments, sets done.",
        steps=[
            say(f"Revising for {asked}."),
            *paced([write(path, content) for path, content in {**files, "README.md": readme}.items()], pace_s),
            shell(TESTS),
            *wrap_up(f"Revised for {asked} and delivered a new ZIP; the tests pass."),
        ],
    )


def delegate(teammate: str, title: str, body: str) -> Script:
    return Script(
        name="story-delegate",
        per_message=True,
        description="Hands the work to the named teammate through one child task, waits for it, reports the final delivery.",
        steps=[
            use("create_child_task", title=title, body=body, assignee_name=teammate),
            use("wait_for_task"),
            use("comment", body=f"{teammate} finished the child task. The final delivery is sha256 {{last_sha256}}."),
            use("set_status", status="done"),
            finish(f"{teammate} delivered; I reported the final delivery."),
        ],
    )


def reply(nonce: str) -> Script:
    text = f"Understood, I stopped the earlier work. Your short reply: {nonce}"
    return Script(
        name="story-reply",
        description="Sends the short reply with the nonce, sets the task done.",
        per_message=True,
        steps=[use("comment", body=text), use("set_status", status="done"), finish(text)],
    )


def decided(name: str, description: str, ask: list[Step], told: str) -> Script:
    """Ask through the product, wait for the person's decision, say what came of it, finish."""
    return Script(
        name=name,
        per_message=True,
        description=description,
        steps=[
            *ask,
            use("read_decision", request_id="{last:interaction_id}"),
            use("comment", body=told),
            use("set_status", status="done"),
            finish(told),
        ],
    )


def document(title: str, service: str) -> Script:
    return decided(
        "story-document",
        "Creates the document through the connected service; the user decides first; reports the service's answer.",
        [
            use("list_connections"),
            use(
                "call_service_action",
                connection_id="{last:connection_id}",
                action="create_document",
                arguments={"title": title},
            ),
        ],
        f"Creating {title!r} in {service} was {{last:decision}} by you; the service's document: {{last:id}}.",
    )


def connect(provider: str) -> Script:
    return decided(
        "story-connect",
        "Asks the user to connect the provider the work needs; without it, says what it could not do.",
        [use("request_connection", provider=provider, reason=f"the notes are in {provider}")],
        f"Your answer on connecting {provider}: {{last:decision}}. Without it I wasn't able to read the notes.",
    )


def email() -> Script:
    return decided(
        "story-email",
        "Asks the user for an email address of its own; reports the answer.",
        [use("request_email_setup", reason="so people outside the company can write to me")],
        "Your answer on my email address: {last:decision}. Without a key I wasn't able to get one.",
    )


def latest_user_message(user_text: str, opening: str = "") -> str:
    """The newest message from the user, in the wording of whichever product's prompt this is: its list of new
    messages, the comments that woke the run, or the words a resumed session brings (``opening``: the words that
    opened the session)."""
    if any(words.resumed_with_words(opening) for words in prompt_formats()):
        return user_text
    for words in prompt_formats():
        if (newest := words.newest_message(user_text)) is not None:
            return newest
    return ""


def for_message(
    user_text: str, pace_s: float = 0, first_read: str = "", opening: str = "", earlier: Sequence[str] = ()
) -> Script:
    """The script a competent agent would follow for this briefing or these new messages.

    ``pace_s`` pauses after each file written, like the scripted agent's pace,
    so a story's fault (a late message, Stop, a restart) lands mid-work.
    ``first_read`` is what the agent read first since then (see ``from_issue``);
    ``opening`` the words that opened a resumed session; ``earlier`` the tool
    results before these messages: a message the agent already took in from
    its issue earlier in the session (and so answered) is not answered again.
    """
    latest = latest_user_message(user_text, opening)
    if latest and _answered_before(user_text, earlier):
        told = "I already answered that comment in my previous run; nothing is left for me to do."
        return Script(
            name="story-answered-before",
            per_message=True,
            description="Woken with a comment it already took in from its issue and answered: it sets the issue"
            " done again (the comment's wake reopened it) and ends its turn.",
            steps=[use("set_status", status="done"), finish(told)],
        )
    if latest:
        return answer(latest, pace_s)
    task = next((found for words in prompt_formats() if (found := words.request(user_text))), None)
    if task is None and any(words.names_item(user_text) for words in prompt_formats()):
        return from_issue(first_read, pace_s)
    title, body = (task.group("title"), task.group("body")) if task else ("", "")
    return for_request(title, body, pace_s, teammates_listed="Your teammates:" in user_text)


def answer(message: str, pace_s: float) -> Script:
    """What the user's newest message asks: the short reply with its nonce, else a revision."""
    if nonce := NONCE.search(message):
        return reply(nonce.group("nonce"))
    return revise(message, pace_s)


def from_issue(issue: str, pace_s: float) -> Script:
    """A wake that names the issue, not its request (Paperclip's): read it first (``read_task``), then do what it asks.

    ``issue`` is that read's result (empty before it). An issue already done
    (a lead woken again after it reported) leaves nothing to do. The read
    also hands over the user's comments no run of the agent answered yet
    (``new_messages``: a comment left while the agent was paused, or while a
    run was cut short), which a run woken for the issue alone takes in as a
    model would: its newest one is answered (a nonce gets its reply; a build
    is built as revised), except by a lead that hands the work on. Metered
    work is done over two runs: the first writes the tool, says so and has
    the product wake it again (the agent has not commented yet), the next one
    builds the rest.
    """
    read = use("read_task")
    if not issue:
        return Script(
            name="story-read-issue",
            per_message=True,
            description="Reads the issue it was woken for: the wake prompt names it without its request.",
            steps=[read, finish("I read the issue.")],
        )
    if field(issue, "status", newest=False) == "done":
        return Script(
            name="story-nothing-left",
            per_message=True,
            description="Reads its issue, finds it done, ends its turn.",
            steps=[read, finish("The issue is done; nothing is left for me to do.")],
        )
    title, body = (
        field(issue, "title", newest=False),
        field(issue, "body", newest=False),
    )  # the issue's, not a comment's
    chosen = for_request(title, body, pace_s, teammates_listed=True)
    said = new_comments(issue)
    if said and (chosen.name == "story-build" or NONCE.search(said[-1])):
        chosen = answer(said[-1], pace_s)
    elif chosen.name == "story-build" and METERED.search(body) and not _has_spoken(issue):
        chosen = first_step(pace_s)
    return chosen.model_copy(update={"steps": [read, *chosen.steps]})


def new_comments(read: str) -> list[str]:
    """The user's comments a read of the issue handed over as new (``new_messages``), oldest first."""
    return [str(m["text"]) for m in listed(read, "new_messages") if isinstance(m, dict) and m.get("text")]


def _answered_before(user_text: str, earlier: Sequence[str]) -> bool:
    """The agent was woken with a comment (by id) that a read of its issue already handed it in this session."""
    woken = next((found for words in prompt_formats() if (found := words.woken_by(user_text)) is not None), None)
    if woken is None:
        return False
    newest = next((m.group("id") for m in reversed(woken) if m.group("author") == "user"), None)
    read = {str(m.get("id")) for result in earlier for m in listed(result, "new_messages") if isinstance(m, dict)}
    return newest is not None and newest in read


def _has_spoken(issue: str) -> bool:
    """The issue's thread holds a comment that is not the user's (the agent reported on it before)."""
    return any(isinstance(c, dict) and c.get("author_kind") == "agent" for c in listed(issue, "comments"))


def for_request(title: str, body: str, pace_s: float, teammates_listed: bool) -> Script:
    """The script for a task's request: delegate to a teammate it names (when the product lists teammates),
    ask for a person's decision, write a skill or a test suite, or build the tool."""
    teammate = TEAMMATE.search(body)
    if teammate and teammates_listed:
        return delegate(teammate.group("name"), title, TEAMMATE.sub("", body, count=1).strip())
    if wanted := DOCUMENT.search(body):
        return document(wanted.group("title"), wanted.group("service"))
    if wanted := PROVIDER.search(body):
        return connect(wanted.group("provider"))
    if EMAIL.search(body):
        return email()
    if wanted := SKILL.search(body):
        return skill(wanted.group("name"))
    if SUITE.search(body):
        return test_suite(pace_s)
    return build(pace_s)


def ignores_late_message(user_text: str, pace_s: float) -> Script:
    """Calibration: builds without the late requirement and, told more, only says it is done (the oracle must catch it)."""
    honest = for_message(user_text, pace_s)
    if honest.name == "story-revise":
        return Script(
            name="story-ignores-late-message",
            description="Acknowledges new messages without acting on them.",
            per_message=True,
            steps=[use("set_status", status="done"), finish("Done.")],
        )
    if honest.name != "story-build":
        return honest
    files = reference.files_without_late_requirement()
    return Script(
        name="story-ignores-late-message",
        per_message=True,
        description="Builds without --max-length and never acts on a new message.",
        steps=[
            *paced([write(path, content) for path, content in files.items()], pace_s),
            shell(TESTS),
            *wrap_up("Delivered slugify.py."),
        ],
    )


def environment_dump(user_text: str, pace_s: float) -> Script:
    """Calibration: the story's work, plus its whole environment written into the delivery (the secret scan must catch it)."""
    honest = for_message(user_text, pace_s)
    steps = list(honest.steps)
    at = next((index for index, step in enumerate(steps) if step.kind == "tool" and step.tool == "deliver"), len(steps))
    steps.insert(at, shell("env > environment.txt"))
    return honest.model_copy(update={"name": "story-environment-dump", "steps": steps})


# Misbehaving variants of the story script, for calibration (``--replay-script``).
MISBEHAVING = {"story-ignores-late-message": ignores_late_message, "story-environment-dump": environment_dump}


READS_TASK_WINDOW_S = 6


def reads_task_midway(user_text: str, pace_s: float) -> Script:
    """For tests of the MCP read: starts, leaves a window for a message, reads it through ``read_task``, ends its turn.

    Messages a resumed session brings are handled as the story script would
    (a nonce gets its short reply), so a message that reached the agent,
    through the tool or through the runner, shows as its answer.
    """
    honest = for_message(user_text, pace_s)
    if honest.name != "story-build":
        return honest
    return Script(
        name="story-reads-task",
        per_message=True,
        description="Writes notes.md, waits, reads its task and new messages through read_task, ends its turn.",
        steps=[
            write("notes.md", "Starting on the task.\n"),
            shell(f"sleep {READS_TASK_WINDOW_S}"),
            use("read_task"),
            finish("I read my task and its new messages."),
        ],
    )


# Well-behaved variants that put one product path under test (``--replay-script`` or a test's model upstream).
PROBES = {"story-reads-task": reads_task_midway}
