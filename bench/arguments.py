"""The argument types every benchmark's command line shares.

A benchmark given zero repetitions used to run, find nothing to take the
median of and end in a traceback; one given an infinite or NaN time ran on
as if no limit were set.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.agents.arguments import number, seconds
from harness.core.output_paths import folder_problem

__all__ = ["cell_id", "count", "output_folder", "seconds"]


count = number(int, "whole number", lambda n: n >= 1, "is not 1 or more")
"""Repetitions, rounds, calls, kills, workers: zero of them would leave nothing to take the median of."""


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
