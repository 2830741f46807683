"""The test suite the scripted agent writes when asked for QA of the slugify tool.

Written from the specification a person sends (the request, then the
--separator and --max-length revisions), the way a careful QA engineer
would: every rule gets an example that only a correct tool passes, and each
rejected value a test of its own. The suite runs in-process (``runpy`` with
``sys.argv`` patched), as the brief asks. ``weak`` is the faulty persona's
suite: it runs the tool but asserts nothing a broken tool would fail.
"""

from __future__ import annotations

# (arguments, printed slug): each row pins one rule of the specification.
CASES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("Hello World",), "hello-world"),  # lowercase, runs become one hyphen (the default separator)
    (("  Queue--Ready!!  ",), "queue-ready"),  # surrounding space and end punctuation stripped
    (("a__b  c",), "a-b-c"),  # a run of several characters becomes one separator
    (("Route 66",), "route-66"),  # digits are kept
    (("Café 東京",), "caf"),  # letters outside ASCII are not kept
    (("!!!",), ""),  # nothing left: an empty line
    (("--separator", "_", "Hello World"), "hello_world"),
    (("--separator", "-", "Hello World"), "hello-world"),
    (("--max-length", "6", "  Queue--Ready!!  "), "queue"),  # the separator the cut exposes is removed
    (("--max-length", "7", "  Queue--Ready!!  "), "queue-r"),
    (("--max-length", "100", "Hello World"), "hello-world"),
    (("--separator", "_", "--max-length", "6", "  Queue--Ready!!  "), "queue"),
)
REJECTED: tuple[tuple[str, ...], ...] = (
    ("--separator", ".", "Hello World"),
    ("--separator", "+", "Hello World"),
    ("--max-length", "0", "Hello World"),
    ("--max-length", "-1", "Hello World"),
    ("--max-length", "abc", "Hello World"),
)

HEADER = '''\
"""Tests of slugify.py's contract, run with `python3 -m unittest` beside slugify.py (no process is started)."""

import contextlib
import io
import os
import runpy
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "slugify.py")


def run_cli(*args):
    """(exit status, stdout) of `python3 slugify.py ARGS`, run in this process."""
    out = io.StringIO()
    saved = sys.argv
    sys.argv = [SCRIPT, *args]
    status = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            try:
                runpy.run_path(SCRIPT, run_name="__main__")
            except SystemExit as stop:
                status = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    finally:
        sys.argv = saved
    return status, out.getvalue()


def load_function():
    sys.path.insert(0, HERE)
    try:
        import slugify
    finally:
        sys.path.remove(HERE)
    return slugify.slugify

'''

STRICT = """

class SlugifyContractTest(unittest.TestCase):
    def test_function_returns_the_slug(self):
        slugify = load_function()
        for args, slug in CASES:
            if not args[0].startswith("--"):
                with self.subTest(text=args[0]):
                    self.assertEqual(slugify(args[0]), slug)

    def test_command_line_prints_the_slug(self):
        for args, slug in CASES:
            with self.subTest(args=args):
                self.assertEqual(run_cli(*args), (0, slug + "\\n"))

    def test_command_line_rejects_invalid_values(self):
        for args in REJECTED:
            with self.subTest(args=args):
                self.assertNotEqual(run_cli(*args)[0], 0)


if __name__ == "__main__":
    unittest.main()
"""

WEAK = """

class SlugifyContractTest(unittest.TestCase):
    def test_command_line_runs(self):
        for args, _ in CASES:
            with self.subTest(args=args):
                self.assertIsInstance(run_cli(*args)[1], str)


if __name__ == "__main__":
    unittest.main()
"""


def suite(weak: bool = False) -> str:
    """The test_slugify.py module: the careful suite, or the persona's suite that asserts nothing that matters."""
    tables = f"CASES = {list(CASES)!r}\nREJECTED = {list(REJECTED)!r}\n"
    return HEADER + tables + (WEAK if weak else STRICT)
