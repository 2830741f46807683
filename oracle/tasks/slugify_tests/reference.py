"""The slugify-tests reference delivery: the suite a careful QA engineer would write.

Its fact tables are generated from the slugify contract's facts, so the
suite and the grading can never disagree about what a slug is. Calibration
derives its bad suites from it (one change each) and tests grade it.
"""

from __future__ import annotations

from oracle.tasks.slugify import contract as tool
from oracle.tasks.slugify_tests.contract import TEST_MODULE


def _cases() -> list[tuple[tuple[str, ...], str]]:
    facts = (*tool.BASE_FACTS, *tool.SEPARATOR_FACTS, *tool.MAX_LENGTH_FACTS, *tool.COMBINED_FACTS)
    return [((f.text, *f.options), f.slug) for f in facts]


def _rejections() -> list[tuple[str, ...]]:
    options = [("--separator", v) for v in tool.INVALID_SEPARATORS] + [
        ("--max-length", v) for v in tool.INVALID_MAX_LENGTHS
    ]
    return [("Hello World", *option) for option in options]


def _table(name: str, rows: list) -> str:
    return f"{name} = [\n" + "".join(f"    {row!r},\n" for row in rows) + "]\n"


HEADER = '''\
"""Tests of slugify.py's contract: the function, the command line, --separator and --max-length.

Run with `python3 -m unittest` in the folder that holds slugify.py. The command line is
exercised in-process (runpy with sys.argv patched), so no process is started.
"""

import contextlib
import io
import os
import runpy
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "slugify.py")
'''

BODY = '''

def run_cli(*args):
    """(exit status, stdout) of `python3 slugify.py ARGS`, run in this process."""
    out, err = io.StringIO(), io.StringIO()
    saved = sys.argv
    sys.argv = [SCRIPT, *args]
    status = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                runpy.run_path(SCRIPT, run_name="__main__")
            except SystemExit as stop:
                status = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    finally:
        sys.argv = saved
    return status, out.getvalue()


class FunctionTest(unittest.TestCase):
    def test_slugify_function(self):
        sys.path.insert(0, HERE)
        try:
            import slugify
        finally:
            sys.path.remove(HERE)
        for (text, *options), slug in CASES:
            if not options:
                with self.subTest(text=text):
                    self.assertEqual(slugify.slugify(text), slug)


class CommandLineTest(unittest.TestCase):
    def test_prints_the_slug(self):
        for args, slug in CASES:
            with self.subTest(args=args):
                self.assertEqual(run_cli(*args), (0, slug + "\\n"))

    def test_rejects_invalid_values(self):
        for args in REJECTED:
            with self.subTest(args=args):
                status, _ = run_cli(*args)
                self.assertNotEqual(status, 0)


if __name__ == "__main__":
    unittest.main()
'''


def suite() -> str:
    """The reference test_slugify.py."""
    return HEADER + "\n" + _table("CASES", _cases()) + _table("REJECTED", _rejections()) + BODY


def files() -> dict[str, str]:
    """The reference delivery: the one test module."""
    return {TEST_MODULE: suite()}
