"""A command line's outcome, taken in the test's own process from the ``main`` that ``python -m`` calls.

A fresh interpreter per bad command line costs one to two CPU seconds of imports, nearly all of what a
bad-input test spends. For a command line refused before anything starts, calling the entry point's
``main(argv)`` proves the same: the exit status the interpreter would end with, what was printed (an
exception escaping ``main`` is the traceback, and fails the test), and what was left on disk. Each entry
point keeps one test in a real subprocess, so a difference in how ``python -m`` wires it cannot hide.

``never_starts`` (and ``never_parsed`` where the work starts right after parsing) turn whatever a
refused command line must not reach into a failed test, so a command line that is wrongly accepted fails
here instead of starting real work (a product, a benchmark, signal handlers) inside the test worker.
"""

from __future__ import annotations

import argparse
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple, NoReturn

import pytest


class Ended(NamedTuple):
    """How a command ended: its exit status and what it printed."""

    status: int
    out: str
    err: str

    @classmethod
    def of(cls, done: subprocess.CompletedProcess[str]) -> Ended:
        return cls(done.returncode, done.stdout, done.stderr)


def ended(main: Callable[[list[str]], int | None], argv: Sequence[str], capfd: pytest.CaptureFixture[str]) -> Ended:
    """Call ``main(argv)`` as ``sys.exit(main())`` would end: a SystemExit's code is mapped as the interpreter does."""
    capfd.readouterr()  # only what this command prints
    try:
        code: object = main(list(argv))
    except SystemExit as exit_:
        code = exit_.code
    out, err = capfd.readouterr()
    if code is None or isinstance(code, int):
        return Ended(code or 0, out, err)
    return Ended(1, out, f"{err}{code}\n")  # the interpreter prints any other code and exits 1


def listing(folder: Path) -> list[str]:
    """Every path under ``folder``, relative to it."""
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*"))


def put_a_file_in_the_way(folder: Path) -> list[str]:
    """``folder/a-file``, for a bad command line to name as a folder or a folder's parent; the listing after it."""
    (folder / "a-file").write_text("keep me\n")
    return listing(folder)


def assert_refused(done: Ended, says: str, folder: Path, before: list[str]) -> None:
    """Exit 2 with the reason on the last line of stderr, no traceback, and ``folder`` as it was ``before``."""
    assert done.status == 2 and "Traceback" not in done.err, done.out + done.err
    assert says in done.err.splitlines()[-1], done.err
    assert listing(folder) == before and (folder / "a-file").read_text() == "keep me\n"


def never_starts(monkeypatch: pytest.MonkeyPatch, *targets: str) -> None:
    """Replace each dotted ``module.attribute`` with one that fails the test: a refused command line never gets there."""

    def started(*_args: object, **_kwargs: object) -> NoReturn:
        raise AssertionError(f"the command line was accepted: it reached {', '.join(targets)}")

    for target in targets:
        monkeypatch.setattr(target, started)


def never_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test when any parser accepts its command line: for entry points whose work starts right after it."""
    parse = argparse.ArgumentParser.parse_args

    def refusing(
        self: argparse.ArgumentParser, args: Sequence[str] | None = None, namespace: object = None
    ) -> NoReturn:
        parse(self, args, namespace)  # type: ignore[arg-type]
        raise AssertionError(f"{self.prog} accepted {args}: it would have started")

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", refusing)
