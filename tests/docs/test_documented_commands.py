"""Every command the README and the documentation site show in a fenced ``sh`` block works.

The convention: a block tagged ``sh`` holds runnable commands, one a line (``#`` starts a comment); blocks tagged
otherwise (``text``, ``python``, ``toml``) are read, never run. Each command is proven without starting anything
expensive:

- cheap ones run as written and must succeed with output: ``harness list ...``, ``harness schema`` and any command
  ending in ``--help``;
- ``make TARGET`` must name a target that ``make help`` lists (``help`` itself excepted), and an ``ID=`` it passes
  must be a selection ``harness list`` accepts;
- any other command must show its help (``<program> <subcommands> --help``) and every long flag it uses must appear
  there; a ``harness run`` must also name a selection ``harness list`` accepts (a ``--resume`` names none).

The README's size is held here too: it is the front door, and everything longer belongs on the site.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from harness.cli import main

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = (ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")))
SH_BLOCK = re.compile(r"^```sh\n(.*?)^```", re.MULTILINE | re.DOTALL)
WORD = re.compile(r"^[a-z][a-z0-9-]*$")
SELECTION_VALUES = ("--suite", "--profile", "--environment", "--case", "--id", "--shard")
README_MAX_LINES = 160
MAX_LINE = 120


def documented_commands(text: str) -> list[str]:
    """The commands of every ``sh`` block in ``text``, comments and blank lines dropped."""
    return [
        " ".join(shlex.quote(token) for token in tokens)
        for block in SH_BLOCK.findall(text)
        for line in block.splitlines()
        if (tokens := shlex.split(line, comments=True))
    ]


def _all_commands() -> list[tuple[str, str]]:
    found = {}
    for document in DOCUMENTS:
        for command in documented_commands(document.read_text(encoding="utf-8")):
            found.setdefault(command, document.relative_to(ROOT).as_posix())
    return [(where, command) for command, where in found.items()]


def _program(tokens: list[str]) -> tuple[list[str], list[str]]:
    """The argv that starts the program (the venv's python and scripts resolved), and the arguments after it."""
    head, rest = tokens[0], tokens[1:]
    if head in (".venv/bin/python", "python", "python3"):
        if rest[:1] == ["-m"] and len(rest) > 1:
            return [sys.executable, "-m", rest[1]], rest[2:]
        return [sys.executable], rest
    if head.startswith(".venv/bin/"):
        return [str(Path(sys.executable).parent / head.removeprefix(".venv/bin/"))], rest
    return [head], rest


def _run(argv: list[str]) -> subprocess.CompletedProcess[str]:
    """Run ``argv``: ``harness`` in this process (its catalog is built once), anything else as a process."""
    if argv[0].endswith("/harness"):
        return _harness(argv[1:])
    return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)


def _harness(arguments: list[str]) -> subprocess.CompletedProcess[str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(arguments)
        except SystemExit as exit:  # argparse: --help, or a refused flag
            status = exit.code if isinstance(exit.code, int) else 1
    return subprocess.CompletedProcess(["harness", *arguments], status, out.getvalue(), err.getvalue())


def _failure(argv: list[str], done: subprocess.CompletedProcess[str]) -> str | None:
    if done.returncode != 0:
        return f"`{shlex.join(argv)}` exited {done.returncode}: {(done.stderr or done.stdout).strip()[:300]}"
    if not done.stdout.strip():
        return f"`{shlex.join(argv)}` printed nothing"
    return None


def _selection(arguments: list[str]) -> list[str]:
    """The selection flags of a ``harness run`` (or ``list``) command line, with their values."""
    picked: list[str] = []
    for index, token in enumerate(arguments):
        if token == "--all":
            picked.append(token)
        elif token in SELECTION_VALUES and index + 1 < len(arguments):
            picked += [token, arguments[index + 1]]
    return picked


def _harness_list(selection: list[str]) -> str | None:
    argv = [str(Path(sys.executable).parent / "harness"), "list", *selection]
    return _failure(argv, _run(argv))


@cache
def _make_help() -> str:
    return _run(["make", "--no-print-directory", "-s", "help"]).stdout


def _make_problems(arguments: list[str]) -> list[str]:
    targets = [a for a in arguments if "=" not in a and not a.startswith("-")]
    variables = dict(a.split("=", 1) for a in arguments if "=" in a)
    problems = [
        f"`make {t}` is not listed by `make help`" for t in targets if t != "help" and f"make {t} " not in _make_help()
    ]
    if "ID" in variables and (failure := _harness_list(["--id", variables["ID"]])):
        problems.append(failure)
    return problems


def problems(command: str) -> list[str]:
    """What is wrong with one documented command; empty when it works."""
    tokens = shlex.split(command)
    if tokens[0] == "make":
        return _make_problems(tokens[1:])
    program, arguments = _program(tokens)
    if "--" in arguments:
        arguments = arguments[: arguments.index("--")]
    cheap = arguments[-1:] == ["--help"] or (
        program[0].endswith("/harness") and arguments[:1] in (["list"], ["schema"])
    )
    if cheap:
        failure = _failure(program + arguments, _run(program + arguments))
        return [failure] if failure else []
    words = []
    for token in arguments:
        if not WORD.match(token):
            break
        words.append(token)
    help_argv = [*program, *words, "--help"]
    shown = _run(help_argv)
    if failure := _failure(help_argv, shown):
        return [failure]
    found = [
        f"`{flag}` is not an option of `{shlex.join(tokens[: len(tokens) - len(arguments) + len(words)])}`"
        for flag in (a.split("=", 1)[0] for a in arguments if a.startswith("--"))
        if not re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", shown.stdout)
    ]
    resumes = "--resume" in arguments  # a resume plays its campaign's own plan and names no selection
    if (
        program[0].endswith("/harness")
        and words[:1] == ["run"]
        and not resumes
        and (failure := _harness_list(_selection(arguments)))
    ):
        found.append(failure)
    return found


@pytest.mark.parametrize(("where", "command"), _all_commands(), ids=lambda value: value)
def test_documented_command_works(where: str, command: str) -> None:
    assert problems(command) == [], f"{where}: {command}"


def test_the_documents_show_commands() -> None:
    """The convention is in use: the README and most pages carry runnable blocks (a renamed tag would hide them)."""
    commands = _all_commands()
    assert {where for where, _ in commands} >= {"README.md", "docs/guides/run.md", "docs/own-product.md"}
    assert any(command.startswith("make story") for _, command in commands)
    assert any(command.startswith("make test") for _, command in commands)


def test_readme_is_a_front_door() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines; move the detail into docs/"
    long = [number for number, line in enumerate(lines, 1) if len(line) > MAX_LINE]
    assert long == [], f"README.md lines over {MAX_LINE} characters: {long}"


@pytest.mark.parametrize(
    "command",
    [
        "make no-such-target",
        "make story ID=no-such-case",
        ".venv/bin/harness list --case no-such-case",
        ".venv/bin/harness run --id build-revise --no-such-flag 1",
        ".venv/bin/harness run --case no-such-case",
        ".venv/bin/python -m oracle grade --no-such-flag x.zip",
        ".venv/bin/python -m no_such_module --help",
    ],
)
def test_a_broken_documented_command_is_caught(command: str) -> None:
    """Calibration: each way a documented command can rot is reported."""
    assert problems(command) != []


def test_only_sh_blocks_are_commands() -> None:
    text = (
        "```sh\nmake story ID=build-revise  # one cell\n\n.venv/bin/harness list --all\n```\n```text\nmake nope\n```\n"
    )
    assert documented_commands(text) == ["make story ID=build-revise", ".venv/bin/harness list --all"]


def test_readme_links_lead_to_files() -> None:
    """The README sits outside the site, so the strict build does not check its links: this does."""
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", (ROOT / "README.md").read_text(encoding="utf-8"))
    local = [target for target in targets if "://" not in target]
    assert local, "the README links into docs/"
    assert [target for target in local if not (ROOT / target).is_file()] == []
