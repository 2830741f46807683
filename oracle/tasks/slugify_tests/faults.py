"""The faulty implementations a delivered suite must catch; the agent never sees them.

Each is the slugify task's reference tool with one realistic mistake, made
by a textual change that must match exactly once: if the reference moves,
this module fails to import instead of silently grading against a copy of
the good tool.
"""

from __future__ import annotations

from pydantic import BaseModel

from oracle.tasks.slugify.reference import GOOD_SLUGIFY

REFERENCE_IMPLEMENTATION = GOOD_SLUGIFY
"""The implementation every suite must pass against: the slugify task's own reference."""


class Fault(BaseModel):
    """One faulty implementation: a stable name (used in check ids) and its source."""

    name: str
    source: str


def _fault(name: str, old: str, new: str) -> Fault:
    if GOOD_SLUGIFY.count(old) != 1:
        raise ValueError(f"fault {name}: anchor not found exactly once in the reference tool: {old!r}")
    return Fault(name=name, source=GOOD_SLUGIFY.replace(old, new))


_SUBSTITUTION = 're.sub(r"[^a-z0-9]+", "-", text.strip().lower())'

FAULTS: tuple[Fault, ...] = (
    _fault("drops-digits", _SUBSTITUTION, 're.sub(r"[^a-z]+", "-", text.strip().lower())'),
    _fault("keeps-non-ascii", _SUBSTITUTION, 're.sub(r"[\\W_]+", "-", text.strip().lower())'),
    _fault("keeps-uppercase", _SUBSTITUTION, 're.sub(r"[^A-Za-z0-9]+", "-", text.strip())'),
    _fault("runs-not-collapsed", _SUBSTITUTION, 're.sub(r"[^a-z0-9]", "-", text.strip().lower())'),
    _fault("ends-not-stripped", '.strip("-")\n', "\n"),
    _fault("trailing-separator-after-cut", "slug[:max_length].rstrip(separator)", "slug[:max_length]"),
    _fault("negative-length-accepted", "if number < 1:", "if number == 0:"),
    _fault("zero-length-accepted", "if number < 1:", "if number < 0:"),
    _fault("wrong-default-separator", 'choices=SEPARATORS, default="-"', 'choices=SEPARATORS, default="_"'),
    _fault("invalid-separator-accepted", "choices=SEPARATORS, ", ""),
)
