"""The files of the slugify project the scripted agent writes.

Generated from the requirements it has understood so far, so a revision is
just the same project rendered with more options. ``trailing_separator``
exists only for the faulty persona that trims the wrong character: it trims
hyphens whatever the separator, and nothing after the --max-length cut, so a
trailing separator survives both ways. ``untrimmed_ends`` exists only for
the persona that never trims the ends: "  Hello!" becomes "-hello-".
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Requirements:
    separator: bool = False
    max_length: bool = False

    @classmethod
    def from_texts(cls, texts: list[str]) -> Requirements:
        joined = "\n".join(texts)
        return cls(separator="--separator" in joined, max_length="--max-length" in joined)

    def describe(self) -> str:
        options = [name for name, on in (("--separator", self.separator), ("--max-length", self.max_length)) if on]
        return ", ".join(options) if options else "no options"


def source(req: Requirements, trailing_separator: bool = False, untrimmed_ends: bool = False) -> str:
    sep_default = '"-"'
    signature = "text: str"
    body_sep = '"-"'
    trim = body_sep
    if req.separator:
        signature += ', separator: str = "-"'
        body_sep = "separator"
        trim = '"-"' if trailing_separator else body_sep
    if req.max_length:
        signature += ", max_length: int | None = None"
    lines = [
        '"""Turn text into a URL slug: a small, dependency-free command-line tool."""',
        "",
        "from __future__ import annotations",
        "",
        "import argparse",
        "import re",
        "import sys",
        "",
        "",
        f"def slugify({signature}) -> str:",
        '    """Lowercase, replace runs of characters outside a-z0-9 with one separator, trim the ends."""',
        f'    slug = re.sub(r"[^a-z0-9]+", {body_sep}, text.strip().lower())'
        + ("" if untrimmed_ends else f".strip({trim})"),
    ]
    if req.max_length:
        lines += ["    if max_length is not None:", "        slug = slug[:max_length]"]
        if not trailing_separator:
            lines += [f"        slug = slug.rstrip({body_sep})"]
    lines += ["    return slug", ""]
    if req.max_length:
        lines += [
            "",
            "def positive_int(value: str) -> int:",
            "    try:",
            "        number = int(value)",
            "    except ValueError:",
            '        raise argparse.ArgumentTypeError(f"not a positive integer: {value!r}") from None',
            "    if number < 1:",
            '        raise argparse.ArgumentTypeError(f"not a positive integer: {value!r}")',
            "    return number",
            "",
        ]
    lines += [
        "",
        "def main(argv: list[str] | None = None) -> int:",
        '    parser = argparse.ArgumentParser(description="Print the slug of TEXT.")',
        '    parser.add_argument("text", help="the text to slugify")',
    ]
    call = "slugify(args.text"
    if req.separator:
        lines.append(
            f'    parser.add_argument("--separator", choices=["-", "_"], default={sep_default}, help="word separator")'
        )
        call += ", separator=args.separator"
    if req.max_length:
        lines.append(
            '    parser.add_argument("--max-length", type=positive_int, default=None, help="maximum slug length")'
        )
        call += ", max_length=args.max_length"
    lines += [
        "    args = parser.parse_args(argv)",
        f"    print({call}))",
        "    return 0",
        "",
        "",
        'if __name__ == "__main__":',
        "    sys.exit(main())",
        "",
    ]
    return "\n".join(lines)


def readme(req: Requirements) -> str:
    usage = [
        "# slugify",
        "",
        "Turn text into a URL slug. No dependencies beyond Python 3.",
        "",
        "## Usage",
        "",
        "```",
        'python slugify.py "Hello World"        # hello-world',
    ]
    if req.separator:
        usage.append('python slugify.py --separator _ "Hello World"   # hello_world')
    if req.max_length:
        usage.append('python slugify.py --max-length 6 "  Queue--Ready!!  "   # queue')
    usage += ["```", "", "From Python: `from slugify import slugify`.", ""]
    if req.separator:
        usage += ['`--separator` accepts "-" (default) or "_"; anything else exits with status 2.', ""]
    if req.max_length:
        usage += [
            "`--max-length N` truncates to at most N characters and drops a trailing separator;",
            "N must be a positive integer, otherwise the tool exits with status 2.",
            "",
        ]
    usage += ["## Tests", "", "```", "python -m unittest test_slugify", "```", ""]
    return "\n".join(usage)


def tests(req: Requirements) -> str:
    lines = [
        '"""Tests for slugify.py (run: python -m unittest test_slugify)."""',
        "",
        "import subprocess",
        "import sys",
        "import unittest",
        "",
        "from slugify import slugify",
        "",
        "",
        "def cli(*args):",
        '    return subprocess.run([sys.executable, "slugify.py", *args], capture_output=True, text=True)',
        "",
        "",
        "class SlugifyTest(unittest.TestCase):",
        "    def test_examples(self):",
        '        self.assertEqual(slugify("Hello World"), "hello-world")',
        '        self.assertEqual(slugify("  Queue--Ready!!  "), "queue-ready")',
        '        self.assertEqual(slugify("!!!"), "")',
        '        self.assertEqual(slugify("Café 東京"), "caf")',
        "",
        "    def test_cli(self):",
        '        self.assertEqual(cli("Hello World").stdout, "hello-world\\n")',
        '        self.assertEqual(cli("!!!").stdout, "\\n")',
    ]
    if req.separator:
        lines += [
            "",
            "    def test_separator(self):",
            '        self.assertEqual(cli("--separator", "_", "Hello World").stdout, "hello_world\\n")',
            '        self.assertNotEqual(cli("--separator", ".", "Hello World").returncode, 0)',
        ]
    if req.max_length:
        lines += [
            "",
            "    def test_max_length(self):",
            '        self.assertEqual(cli("--max-length", "6", "  Queue--Ready!!  ").stdout, "queue\\n")',
            '        self.assertEqual(cli("--max-length", "7", "  Queue--Ready!!  ").stdout, "queue-r\\n")',
            '        self.assertNotEqual(cli("--max-length", "0", "x").returncode, 0)',
        ]
    lines += ["", "", 'if __name__ == "__main__":', "    unittest.main()", ""]
    return "\n".join(lines)


def project(req: Requirements, trailing_separator: bool = False, untrimmed_ends: bool = False) -> dict[str, str]:
    """Every file of the project, in the order the agent writes them."""
    return {
        "slugify.py": source(req, trailing_separator, untrimmed_ends),
        "README.md": readme(req),
        "test_slugify.py": tests(req),
    }
