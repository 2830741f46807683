"""Numbered histories beside a package: a file added under the next number, never over another.

Judgements (``judgements/<judge>/<criterion>/NNNN.json``) and assessments
(``assessments/NNN-<time>.json``) are both kept this way: every earlier file
stays, the highest number is the newest. Two processes adding at once each
get a number of their own: the file is created exclusively, and a number
already taken moves on to the next.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path


def numbers(folder: Path, pattern: re.Pattern[str]) -> list[int]:
    """The numbers of the files in ``folder`` whose names ``pattern`` matches (its group 1), lowest first."""
    if not folder.is_dir():
        return []
    return sorted(int(m.group(1)) for p in folder.iterdir() if (m := pattern.match(p.name)))


def add_numbered(folder: Path, pattern: re.Pattern[str], name: Callable[[int], str], text: str) -> Path:
    """Write ``text`` to ``folder / name(n)`` for the first free number ``n`` above every file ``pattern`` matches."""
    folder.mkdir(parents=True, exist_ok=True)
    number = (numbers(folder, pattern) or [0])[-1] + 1
    while True:
        path = folder / name(number)
        taken = number in numbers(folder, pattern)
        try:
            if taken:
                raise FileExistsError(path)
            with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL), "w") as out:
                out.write(text)
            return path
        except FileExistsError:  # another process took this number first
            number += 1
