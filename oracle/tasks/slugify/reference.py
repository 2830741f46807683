"""The slugify task's reference solution: a delivery written the way a careful agent would write it.

It passes every mode. Calibration derives its bad deliveries from it (one
change each) and the benchmark grades it, so it lives with the task whose
contract it satisfies.
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

TESTS = """\
import unittest

from slugify import slugify


class SlugifyTest(unittest.TestCase):
    def test_basic(self):
        self.assertEqual(slugify("Hello World"), "hello-world")


if __name__ == "__main__":
    unittest.main()
"""


def files() -> dict[str, str]:
    """The reference delivery's files, relative to its project folder."""
    return {"slugify.py": GOOD_SLUGIFY, "README.md": README, "tests/test_slugify.py": TESTS}
