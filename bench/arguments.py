"""The argument types every benchmark's command line shares.

A benchmark given zero repetitions used to run, find nothing to take the
median of and end in a traceback; one given an infinite or NaN time ran on
as if no limit were set.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from harness.core.output_paths import folder_problem


def count(text: str) -> int:
    """A whole number of at least 1 (repetitions, rounds, calls, kills, workers)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def seconds(text: str) -> float:
    """A positive, finite number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"{text!r} must be a positive, finite number of seconds")
    return value


def output_folder(text: str) -> Path:
    """A folder to write into: it may not exist yet, but no file may stand in its way."""
    problem = folder_problem(Path(text))
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return Path(text)


def cell_id(text: str) -> str:
    """A case name or full execution id the catalog knows (an unknown one would be benchmarked as nothing)."""
    from harness.running.selection import SelectionError, select

    try:
        select(ids=(text,))
    except SelectionError as error:
        raise argparse.ArgumentTypeError(str(error).split(";")[0]) from None
    return text
