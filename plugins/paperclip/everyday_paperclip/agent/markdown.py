"""Paperclip's stored markdown read back as the text a person typed (the agent and the harness read it alike)."""

from __future__ import annotations

import re

MARKDOWN_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|~<>])")
# A numeric character reference (CommonMark: it stands for its character). Paperclip's editor writes a line's
# leading space as ``&#x20;``, so a list item's indented continuation line reads "&#x20; line".
CHARACTER_REFERENCE = re.compile(r"&#(?:[xX]([0-9a-fA-F]{1,6})|([0-9]{1,7}));")


def markdown_text(body: str) -> str:
    """A comment or a description as the person typed it: Paperclip's editors store markdown, escaping ``_`` as
    ``\\_`` and a leading space as ``&#x20;``."""
    unescaped = MARKDOWN_ESCAPE.sub(r"\1", body)
    return CHARACTER_REFERENCE.sub(lambda m: chr(int(m[1], 16) if m[1] else int(m[2])), unescaped)
