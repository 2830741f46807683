"""Source text of the bad calibration deliveries, generated in code (no binary fixtures).

The good tool is the slugify task's reference solution. Each bad
variant changes one thing, so a failure can only be explained by that one
thing. Escape attempts are built so the tool prints correct slugs ONLY if the
escape worked: a broken sandbox turns the bad delivery into a pass, and
calibration fails loudly.
"""

from __future__ import annotations

from oracle.tasks.slugify.reference import GOOD_SLUGIFY


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
    source = variant(
        'def slugify(text, separator="-", max_length=None):\n',
        'def slugify(text, separator="-", max_length=None):\n    if not ESCAPED:\n        return text\n',
    )
    return variant(
        'SEPARATORS = ("-", "_")\n', 'SEPARATORS = ("-", "_")\n' + prelude + f"\nESCAPED = bool({condition})\n", source
    )


def with_main_prelude(prelude: str) -> str:
    """The good tool that runs `prelude` first when used as a CLI."""
    return variant(
        "    args = parser.parse_args(argv)\n",
        "    args = parser.parse_args(argv)\n" + "".join("    " + line + "\n" for line in prelude.splitlines()),
    )
