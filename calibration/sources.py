"""Source text of the calibration deliveries, generated in code (no binary fixtures).

The good tool is written the way a careful agent would write it. Each bad
variant changes one thing, so a failure can only be explained by that one
thing. Escape attempts are built so the tool prints correct slugs ONLY if the
escape worked: a broken sandbox turns the bad delivery into a pass, and
calibration fails loudly.
"""

from __future__ import annotations

GOOD_SLUGIFY = '''\
"""Turn text into a URL slug."""

import argparse
import re
import sys

SEPARATORS = ("-", "_")


def slugify(text, separator="-", max_length=None):
    slug = re.sub(r"[^a-z0-9]+", "-", text.strip().lower()).strip("-")
    slug = slug.replace("-", separator)
    if max_length is not None:
        slug = slug[:max_length].rstrip(separator)
    return slug


def positive_int(value):
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not an integer")
    if number < 1:
        raise argparse.ArgumentTypeError(f"{value!r} is not positive")
    return number


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("text")
    parser.add_argument("--separator", choices=SEPARATORS, default="-")
    parser.add_argument("--max-length", type=positive_int, default=None)
    args = parser.parse_args(argv)
    print(slugify(args.text, args.separator, args.max_length))
    return 0


if __name__ == "__main__":
    sys.exit(main())
'''

README = "# slugify\n\n`python3 slugify.py TEXT [--separator -|_] [--max-length N]` prints the slug.\n"

TESTS = '''\
import unittest

from slugify import slugify


class SlugifyTest(unittest.TestCase):
    def test_basic(self):
        self.assertEqual(slugify("Hello World"), "hello-world")


if __name__ == "__main__":
    unittest.main()
'''


def variant(old: str, new: str, source: str = GOOD_SLUGIFY) -> str:
    """The good source with exactly one textual change; fails loudly if the anchor moved."""
    if source.count(old) != 1:
        raise ValueError(f"calibration anchor not found exactly once: {old!r}")
    return source.replace(old, new)


def gated(prelude: str, condition: str) -> str:
    """The good tool whose slugs are right only when `condition` (set up by `prelude`) holds.

    When the condition fails the tool prints the input untouched: a wrong
    slug for every base fact except the already-correct ones.
    """
    source = variant("def slugify(text, separator=\"-\", max_length=None):\n", "def slugify(text, separator=\"-\", max_length=None):\n    if not ESCAPED:\n        return text\n")
    return variant("SEPARATORS = (\"-\", \"_\")\n", "SEPARATORS = (\"-\", \"_\")\n" + prelude + f"\nESCAPED = bool({condition})\n", source)


def with_main_prelude(prelude: str) -> str:
    """The good tool that runs `prelude` first when used as a CLI."""
    return variant("    args = parser.parse_args(argv)\n", "    args = parser.parse_args(argv)\n" + "".join("    " + line + "\n" for line in prelude.splitlines()))
